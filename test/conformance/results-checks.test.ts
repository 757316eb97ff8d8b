import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceCli, parseConformanceArgs } from '../../src/conformance/cli.js';
import type { HiringPlatformArgs } from '../../src/conformance/platforms/hiring-platform/cli.js';
import { RESULTS_CHECKS } from '../../src/conformance/results-checks.js';
import { signVendorResult, verifyVendorSignature, VENDOR_SIGNATURE_HEADER } from '../../src/contract/vendor-signature.js';
import { eventually } from '../support/eventually.js';
import { startKitPartner, type KitPartner } from '../support/kit-partner.js';

/**
 * `npm run conformance --results-secret`: the results endpoint checked as the vendor's product
 * calls it, on the reports the run's own sends created; and what the run leaves behind, said
 * before anything is sent.
 */

const SECRET = 'conformance-results-secret-0123456789abcdef';

async function cli(args: string[], io: { env?: Record<string, string>; interactive?: boolean; confirm?: () => Promise<boolean> } = {}) {
  let stdout = '';
  let stderr = '';
  const code = await conformanceCli(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: io.env ?? {},
    defaultPublicUrl: 'http://127.0.0.1:3000',
    ...(io.interactive !== undefined && { interactive: io.interactive }),
    ...(io.confirm && { confirm: io.confirm }),
  });
  return { code, stdout, stderr, lines: stdout.trimEnd().split('\n') };
}

let kit: KitPartner;
const tokens = async (p: KitPartner) => [(await p.customer('Acme', ['JavaScript'])).token, (await p.customer('Globex', ['SQL'])).token];
const invitations = async (p: KitPartner) => Number((await p.sql.get<{ n: number | string }>('SELECT count(*) AS n FROM invitations'))!.n);

beforeAll(async () => {
  // No platform behind it (nothing listens on port 1): the checker's reports stay as they were sent.
  kit = await startKitPartner({ VENDOR_RESULTS_SECRET: SECRET, PLATFORM_URL: 'http://127.0.0.1:1' });
});
afterAll(() => kit?.close());

describe('where the results endpoint and its secret come from', () => {
  const defaults = { publicUrl: 'http://127.0.0.1:3000' };
  const tokens = ['--token', 'a', '--token', 'b'];
  /** The arguments of a run against the recruiting platform, the default. */
  const parse = (argv: string[], env: Record<string, string> = {}) => {
    const command = parseConformanceArgs(argv, env, defaults);
    if (command.platform !== 'hiring-platform') throw new Error(`parsed as ${command.platform}`);
    return command.args as HiringPlatformArgs;
  };

  it('beside the callbacks, from a base URL or a manifest; --results-url over both; the secret from the environment too', () => {
    expect(parse(['https://p.example.com/callbacks', ...tokens, '--results-secret', 's']).results).toEqual({
      secret: 's',
      url: 'https://p.example.com/vendor/reports/{report_id}/result',
    });
    const manifest = parse(['scripts/partner-manifest.json', '--public-url', 'https://p.example.com/kit', ...tokens], { CONFORMANCE_RESULTS_SECRET: 'env' });
    expect(manifest.results).toEqual({ secret: 'env', url: 'https://p.example.com/kit/vendor/reports/{report_id}/result' });
    const given = ['http://p.test/callbacks', ...tokens, '--results-secret', 's', '--results-url', 'https://r.test/results/{report_id}'];
    expect(parse(given).results?.url).toBe('https://r.test/results/{report_id}');
    expect(parse(['http://p.test/callbacks', ...tokens]).results).toBeUndefined();
  });

  it.each([
    ['--results-url without {report_id}', ['--results-secret', 's', '--results-url', 'https://r.test/results'], 'with {report_id} where the id goes'],
    ['--results-url without a secret', ['--results-url', 'https://r.test/{report_id}'], '--results-url goes with --results-secret'],
    ['an empty secret', ['--results-secret', ' '], '--results-secret is empty'],
  ])('%s: exit 2, what is wrong and the usage', async (_what, args, problem) => {
    const result = await cli(['http://127.0.0.1:1/callbacks', ...tokens, ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(problem);
    expect(result.stderr).toContain('Usage: npm run conformance');
    expect(result.stdout).toBe('');
  });
});

describe("against the kit's partner", () => {
  it('every results check passes, and the secret is printed nowhere', async () => {
    const [a, b] = await tokens(kit);
    const result = await cli([`${kit.url}/callbacks`, '--token', a!, '--token', b!], { env: { CONFORMANCE_RESULTS_SECRET: SECRET } });
    expect(result.stderr).toBe('');
    expect(result.code, result.stdout).toBe(0);
    const results = result.lines.filter((l) => /^[✔✘] results /.test(l));
    expect(results).toHaveLength(RESULTS_CHECKS.length);
    expect(results.every((l) => l.startsWith('✔'))).toBe(true);
    expect(result.lines).toContainEqual(expect.stringMatching(/^✔ results a result signed for one report, replayed to another, answers 401 and changes neither \(401 .*the other report still takes a progress stage \(200\)\)$/));
    expect(result.lines).toContainEqual(expect.stringMatching(/^✔ results a valid result answers 200 \{id, status\} \(200 \{"id":"[0-9a-f-]{36}","status":"completed"\}\)$/));
    expect(result.stdout).not.toContain(SECRET);
    // Report X took the one result the checker posted, and nothing else changed it.
    const rows = await kit.sql.all<{ status: string; score: string | null }>("SELECT status, score FROM invitations WHERE status = 'completed'");
    expect(rows).toEqual([{ status: 'completed', score: '87%' }]);
  }, 60_000);

  it('without the secret the results checks are not run, and say why', async () => {
    const [a, b] = await tokens(kit);
    const result = await cli([`${kit.url}/callbacks`, '--token', a!, '--token', b!]);
    expect(result.code).toBe(0);
    expect(result.lines).toContain(`○ not run (give --results-secret): ${RESULTS_CHECKS.length} checks results.*`);
    expect(result.lines.some((l) => / results /.test(l) && /^[✔✘]/.test(l))).toBe(false);
  }, 60_000);
});

describe('what the run leaves behind, said first', () => {
  it('before any check: the invitations, their fake candidates, the dead letters and how to clean up; CI goes on', async () => {
    const [a, b] = await tokens(kit);
    const result = await cli([`${kit.url}/callbacks`, '--token', a!, '--token', b!, '--results-secret', SECRET]);
    expect(result.code).toBe(0);
    const firstCheck = result.lines.findIndex((l) => /^[✔✘] /.test(l));
    const preamble = result.lines.slice(0, firstCheck).join('\n');
    expect(preamble).toMatch(/^Before it runs: .* creates real invitations in the partner at http:\/\/127\.0\.0\.1:\d+, and so in your product/);
    expect(preamble).toContain('2 invitations (up to 4 if the partner takes the text/plain and 1 MB sends it should refuse): ada@example.com (token A), edsger@example.com (token B)');
    expect(preamble).toContain('dead letters');
    expect(preamble).toContain('Cancel invitation');
    expect(preamble).toContain('"87%"');
    expect(preamble).toContain('Going on (standard input is not a terminal).');
    expect(preamble).not.toContain(SECRET);
  }, 60_000);

  it('on a terminal it asks: "no" sends nothing, exit 1; --yes does not ask', async () => {
    const fresh = await startKitPartner({ VENDOR_RESULTS_SECRET: SECRET });
    try {
      const [a, b] = await tokens(fresh);
      let asked = 0;
      const no = await cli([`${fresh.url}/callbacks`, '--token', a!, '--token', b!], { interactive: true, confirm: async () => (asked++, false) });
      expect(asked).toBe(1);
      expect(no.code).toBe(1);
      expect(no.lines.at(-1)).toBe('Nothing was sent.');
      expect(await invitations(fresh)).toBe(0);

      const yes = await cli([`${fresh.url}/callbacks`, '--token', a!, '--token', b!, '--yes'], { interactive: true, confirm: async () => (asked++, false) });
      expect(asked).toBe(1);
      expect(yes.code).toBe(0);
      expect(yes.stdout).toContain('Going on (--yes).');
      expect(await invitations(fresh)).toBe(2);
    } finally {
      await fresh.close();
    }
  }, 60_000);
});

/** A request on its way through `inFront`, which may change its headers. */
interface Passing {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** A server in front of the kit's partner, handing each request on after `change`. */
async function inFront(partnerUrl: string, change: (req: Passing) => void | Promise<void>): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === 'string' && !['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive'].includes(name)) headers[name] = value;
        }
        await change({ url: req.url ?? '', headers, body });
        const answer = await fetch(`${partnerUrl}${req.url}`, { method: req.method, headers, ...(body.length > 0 && { body }) });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      })().catch(() => {
        res.writeHead(502).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A partner whose results endpoint does not bind a signature to its report: in front of the kit,
 * it takes a result signed for any report it has sent (the report ids it saw in send_candidate)
 * and hands it on, signed anew, to the report of the path.
 */
function unboundSignatures(partnerUrl: string, secret: string) {
  const seen = new Set<string>();
  return inFront(partnerUrl, ({ url, headers, body }) => {
    const reportId = /"report_id":"([0-9a-f-]{36})"/.exec(body.toString('utf8'))?.[1];
    if (url.endsWith('/send_candidate') && reportId) seen.add(reportId);
    const result = /^\/vendor\/reports\/([^/]+)\/result$/.exec(url);
    const given = headers[VENDOR_SIGNATURE_HEADER];
    if (result && given && !verifyVendorSignature(secret, result[1]!, body, given, Date.now()).ok) {
      const signedFor = [...seen].find((id) => verifyVendorSignature(secret, id, body, given, Date.now()).ok);
      if (signedFor) headers[VENDOR_SIGNATURE_HEADER] = signVendorResult(secret, result[1]!, body);
    }
  });
}

describe('a partner that takes a result signed for another report', () => {
  it('fails the cross-report check, naming the replay; exit 1', async () => {
    const broken = await unboundSignatures(kit.url, SECRET);
    try {
      const [a, b] = await tokens(kit);
      const result = await cli([`${broken.url}/callbacks`, '--token', a!, '--token', b!, '--results-secret', SECRET, '--json']);
      expect(result.code).toBe(1);
      const results = JSON.parse(result.stdout) as { id: string; ok: boolean; detail: string }[];
      expect(results.filter((r) => !r.ok).map((r) => r.id)).toEqual(['results.cross_report']);
      const replay = results.find((r) => r.id === 'results.cross_report')!;
      expect(replay.detail).toMatch(
        /^expected 401, got 200 \{"id":"([0-9a-f-]{36})","status":"completed"\}: a result signed for report [0-9a-f-]{36} was taken for report \1$/,
      );
      expect(result.stderr).toContain('Before it runs');
    } finally {
      await broken.close();
    }
  }, 60_000);
});

describe('reports the partner canceled, its platform not knowing them', () => {
  it('the result and what follows it are not run, saying why; the rest pass', async () => {
    // The partner's platform answers 404 to every report update: it knows none of the checker's reports.
    const platform = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Unknown report"}'));
    });
    await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
    const partner = await startKitPartner({
      VENDOR_RESULTS_SECRET: SECRET,
      PLATFORM_URL: `http://127.0.0.1:${(platform.address() as AddressInfo).port}`,
      PARTNER_CODENAME: 'conformance',
      PARTNER_SECRET: 'platform-secret-0123456789abcdef0123456789',
    });
    // The first result waits until the partner has canceled both reports of the checker's sends.
    const front = await inFront(partner.url, async ({ url }) => {
      if (!url.startsWith('/vendor/')) return;
      await eventually(
        async () => {
          const rows = await partner.sql.all<{ status: string }>("SELECT status FROM invitations WHERE canceled_by = 'platform'");
          expect(rows).toHaveLength(2);
        },
        { what: 'the partner to cancel the reports its platform does not know', timeoutMs: 30_000 },
      );
    });
    try {
      const [a, b] = await tokens(partner);
      const result = await cli([`${front.url}/callbacks`, '--token', a!, '--token', b!, '--results-secret', SECRET]);
      expect(result.code, result.stdout).toBe(0);
      expect(result.lines).toContain(
        '○ not run (the partner canceled the checker\'s report before its result: its platform does not know the report (see "What a run leaves behind" in docs/conformance.md)): results.record, results.repeat, results.conflict, results.progress_after_result',
      );
      expect(result.lines).toContainEqual(expect.stringMatching(/^✔ results a result signed for one report, replayed to another, .*the other report was canceled by the partner meanwhile\)$/));
      expect(result.lines.filter((l) => /^✔ results /.test(l))).toHaveLength(RESULTS_CHECKS.length - 4);
    } finally {
      await front.close();
      await partner.close();
      await new Promise((resolve) => platform.close(resolve));
    }
  }, 60_000);
});
