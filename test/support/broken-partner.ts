import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { PlatformSettings } from '../../src/conformance/platforms/hiring-platform/types.js';

/**
 * A partner with three deliberate faults, and otherwise right, for the conformance checker to
 * catch — exactly these and nothing else:
 *
 *  - a body that is not JSON crashes it: 500 instead of a 4xx;
 *  - `tests` wraps its list in an object, `{"tests": [...]}`, instead of a bare array;
 *  - `send_candidate` remembers nothing: every call, a replay too, is a new invitation with a new id.
 *
 * With `callbacksRight`, none of them. Two more faults on request: `testsUnusable` (`tests` answers
 * 503, so no test is known to send) and `noTestLookup` (`send_candidate` checks that test_id is a
 * number, never that the account lists it). With `platform`, each new invitation sends two report
 * updates there, wrong on purpose: one with the secret as a Bearer token, one with an unknown
 * field and a `subtitle` (refused from a check partner); neither gives `urls.cancel`.
 *
 * Its callbacks are `<url>/validate_token`, `<url>/tests` and `<url>/send_candidate`.
 */
export async function startBrokenPartner(
  options: { callbacksRight?: boolean; testsUnusable?: boolean; noTestLookup?: boolean; platform?: () => PlatformSettings | undefined } = {},
) {
  const faulty = !options.callbacksRight;
  const sent = new Map<string, { key: string; answer: unknown }>();
  const reportUpdates = async (reportId: string) => {
    const platform = options.platform?.();
    if (!platform) return;
    const patch = (headers: Record<string, string>, body: unknown) =>
      request(`${platform.PLATFORM_URL}/api/p/${platform.PARTNER_CODENAME}/reports/${reportId}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }).then((res) => res.body.dump());
    await patch({ authorization: `Bearer ${platform.PARTNER_SECRET}` }, { status: 'sent' });
    await patch({ 'rt-partner-secret': platform.PARTNER_SECRET }, { status: 'sent', subtitle: 'Level 2', progress: '0%' });
  };
  const accounts = new Map<string, { companyId?: number; tests: { id: number; name: string }[] }>([
    ['token-a', { tests: [{ id: 1, name: 'JavaScript' }] }],
    ['token-b', { tests: [{ id: 2, name: 'SQL' }] }],
    ['token-empty', { tests: [] }],
  ]);
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      const account = token === undefined ? undefined : accounts.get(token);
      if (!account) return send(res, 401, { error: 'Invalid token' });
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> = {};
      try {
        if (raw !== '') body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        if (faulty) return send(res, 500, { error: 'Internal Server Error' }); // fault 1
        return send(res, 400, { error: 'Malformed JSON' });
      }
      const route = `${req.method} ${new URL(req.url ?? '/', 'http://partner').pathname}`;
      if (route === 'POST /validate_token' || route === 'GET /validate_token') {
        if (body.company_id === undefined) return send(res, 200, { ok: true });
        if (!Number.isInteger(body.company_id)) return send(res, 422, { error: 'company_id must be an integer' });
        if (account.companyId !== undefined && account.companyId !== body.company_id) {
          return send(res, 403, { error: 'This token belongs to another company' });
        }
        account.companyId = body.company_id as number;
        return send(res, 200, { ok: true });
      }
      if (route === 'GET /tests' && options.testsUnusable) return send(res, 503, { error: 'Catalog unavailable' });
      if (route === 'GET /tests') return send(res, 200, faulty ? { tests: account.tests } : account.tests); // fault 2
      if (route === 'POST /send_candidate') {
        if (body.company_id !== account.companyId) return send(res, 403, { error: 'This token belongs to another company' });
        if (options.noTestLookup) {
          if (!/^\d+$/.test(String(body.test_id))) return send(res, 422, { error: 'test_id must be a number' });
        } else if (!account.tests.some((t) => String(t.id) === body.test_id)) return send(res, 422, { error: 'Unknown test' });
        if (typeof body.email !== 'string' || !body.email.includes('@')) return send(res, 422, { error: 'Invalid e-mail address' });
        if (faulty) return send(res, 201, { id: randomUUID(), status: 'sent' }); // fault 3
        const reportId = String(body.report_id);
        const key = JSON.stringify([token, body.candidate_id, body.test_id]);
        const earlier = sent.get(reportId);
        if (earlier && earlier.key !== key) return send(res, 409, { error: 'report_id was used for another candidate' });
        if (!earlier) {
          sent.set(reportId, { key, answer: { id: randomUUID(), status: 'sent' } });
          reportUpdates(reportId).catch(() => {});
        }
        return send(res, 201, sent.get(reportId)!.answer);
      }
      send(res, 404, { error: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    tokens: { a: 'token-a', b: 'token-b', empty: 'token-empty' },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
