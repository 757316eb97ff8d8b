import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Bob as a partner meets it, for the tests (docs/hibob.md): the token URL (RFC 6749
 * `authorization_code` and `refresh_token` grants, form-encoded, client id and secret in the body;
 * one-time codes; refresh tokens rotated, the old one refused once used) and the Assessments API
 * under `/v1` (register packages, an assessment's details, its update-status PATCH), each call
 * authenticated by a company's bearer token and scoped to that company, as Bob's are.
 */

export interface BobRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  /** The company whose token the call carried (undefined: none, or not a valid one). */
  company: string | undefined;
  token: string | undefined;
  /** The form of a token request, or the JSON body of an API call. */
  body: Record<string, unknown>;
  status: number;
}

interface Issued {
  company: string;
  access: string;
  refresh: string;
}

export async function stubBob(app: { clientId: string; clientSecret: string; redirectUri: string }) {
  const requests: BobRequest[] = [];
  /** Install codes: the company each names, and whether the token answer says it. */
  const codes = new Map<string, { company: string; says: boolean }>();
  const accessTokens = new Map<string, string>();
  const refreshTokens = new Map<string, string>();
  const issued: Issued[] = [];
  const assessments = new Map<string, { company: string; details: unknown }>();
  const packages: { company: string; token: string; packages: unknown }[] = [];
  const patches: { id: string; company: string; token: string; body: Record<string, unknown> }[] = [];
  /** Companies whose register call Bob answers 503, for now. */
  const down = new Set<string>();
  let n = 0;
  /** Run before a token request is answered (another instance refreshing meanwhile, say). */
  const hooks: { beforeToken?: (form: Record<string, string>) => Promise<void> } = {};

  const issue = (company: string) => {
    n += 1;
    const pair = { company, access: `bob-access-${company}-${n}-${'x'.repeat(20)}`, refresh: `bob-refresh-${company}-${n}-${'y'.repeat(20)}` };
    accessTokens.set(pair.access, company);
    refreshTokens.set(pair.refresh, company);
    issued.push(pair);
    return pair;
  };

  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void answerIt());
    const answerIt = async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://bob.test');
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const record: BobRequest = {
        method: req.method ?? '',
        path: url.pathname,
        contentType: req.headers['content-type'],
        company: bearer === undefined ? undefined : accessTokens.get(bearer),
        token: bearer,
        body: {},
        status: 0,
      };
      requests.push(record);
      const answer = (status: number, body?: unknown) => {
        record.status = status;
        res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' }).end(body === undefined ? undefined : JSON.stringify(body));
      };

      if (url.pathname === '/oauth/token' && req.method === 'POST') {
        const form = Object.fromEntries(new URLSearchParams(text));
        record.body = form;
        const hook = hooks.beforeToken;
        hooks.beforeToken = undefined;
        await hook?.(form);
        if (form.client_id !== app.clientId || form.client_secret !== app.clientSecret) return answer(401, { error: 'invalid_client' });
        if (form.grant_type === 'authorization_code') {
          const install = codes.get(form.code ?? '');
          if (!install || form.redirect_uri !== app.redirectUri) return answer(400, { error: 'invalid_grant' });
          codes.delete(form.code!);
          const pair = issue(install.company);
          return answer(200, {
            access_token: pair.access,
            refresh_token: pair.refresh,
            token_type: 'Bearer',
            expires_in: 3600,
            ...(install.says && { companyId: install.company }),
          });
        }
        if (form.grant_type === 'refresh_token') {
          const company = refreshTokens.get(form.refresh_token ?? '');
          if (company === undefined) return answer(400, { error: 'invalid_grant' });
          refreshTokens.delete(form.refresh_token!);
          const pair = issue(company);
          return answer(200, { access_token: pair.access, refresh_token: pair.refresh, token_type: 'Bearer', expires_in: 3600 });
        }
        return answer(400, { error: 'unsupported_grant_type' });
      }

      const company = record.company;
      if (!url.pathname.startsWith('/v1/')) return answer(404, { error: 'not found' });
      if (company === undefined) return answer(401, { error: 'unauthorized' });
      if (text) record.body = JSON.parse(text) as Record<string, unknown>;
      if (url.pathname === '/v1/hiring/assessments/packages' && req.method === 'POST') {
        if (down.has(company)) return answer(503, { error: 'unavailable' });
        packages.push({ company, token: bearer!, packages: record.body.packages });
        return answer(201, {});
      }
      const id = /^\/v1\/hiring\/assessments\/([^/]+)$/.exec(url.pathname)?.[1];
      const assessment = id === undefined ? undefined : assessments.get(decodeURIComponent(id));
      // Company-scoped: another company's assessment answers as one that does not exist.
      if (!assessment || assessment.company !== company) return answer(404, { error: 'not found' });
      if (req.method === 'GET') return answer(200, assessment.details);
      if (req.method === 'PATCH') {
        patches.push({ id: decodeURIComponent(id!), company, token: bearer!, body: record.body });
        return answer(204);
      }
      answer(405, { error: 'method not allowed' });
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    packages,
    patches,
    /** The tokens issued, oldest first. */
    issued,
    /** A company's latest tokens. */
    latest: (company: string) => issued.filter((p) => p.company === company).at(-1)!,
    /** A one-time install code for `company`; `says`: the token answer names the company. */
    code(company: string, says = true): string {
      const code = `code-${company}-${codes.size + issued.length + 1}`;
      codes.set(code, { company, says });
      return code;
    },
    /** An assessment a recruiter of `company` ordered, with the details Bob answers for it. */
    order(id: string, company: string, details: unknown): void {
      assessments.set(id, { company, details });
    },
    /** Bob stops taking an access token before its expiry (a revocation): calls with it get 401. */
    revoke(access: string): void {
      accessTokens.delete(access);
    },
    down,
    /** `beforeToken`: run once, before the next token request is answered. */
    hooks,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type StubBob = Awaited<ReturnType<typeof stubBob>>;
