import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/lib/cli.js';
import { commandOptions, conformanceCli, usageText } from '../../src/conformance/cli.js';
import { CHECKERS } from '../../src/conformance/platforms/index.js';
import { defineChecker, stringOption, type CheckerPlugin } from '../../src/conformance/platforms/plugin.js';
import { openReceiver, type ReceiverAddress } from '../../src/conformance/receiver.js';
import { recorder } from '../../src/conformance/run.js';

/**
 * A platform's checker is a plugin in its folder, listed once in the registry: the command line
 * lists every registered platform and its options, refuses a platform it does not know, and takes
 * a new platform — its options, its receiver, its mock's settings — without a change of its own.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

async function cli(args: string[], platforms?: readonly CheckerPlugin[]) {
  let stdout = '';
  let stderr = '';
  const code = await conformanceCli(
    args,
    { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {}, defaultPublicUrl: 'http://127.0.0.1:3000' },
    platforms,
  );
  return { code, stdout, stderr };
}

/** A platform's section of the usage: from its heading to the blank line after it. */
/** Names as the command line lists them: `a or b`, `a, b or c`. */
const either = (names: readonly string[]) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`);
const REGISTERED = CHECKERS.map((p) => p.name);

function sectionOf(usage: string, name: string): string {
  const start = usage.indexOf(`\n--platform ${name}: `);
  expect(start, `no section for ${name}`).toBeGreaterThan(-1);
  const end = usage.indexOf('\n\n', start + 1);
  return usage.slice(start, end === -1 ? undefined : end);
}

describe('the registered platforms', () => {
  it('--help lists every registered platform, each with its options, its receiver\'s and --wait where it has them', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(0);
    expect(REGISTERED.slice(0, 2)).toEqual(['hiring-platform', 'greenhouse']);
    const platformLine = stdout.slice(stdout.indexOf('  --platform NAME'), stdout.indexOf('\n\n', stdout.indexOf('  --platform NAME')) + 1);
    for (const [i, plugin] of CHECKERS.entries()) {
      expect(stdout).toContain(i === 0 ? `npm run conformance -- [--platform ${plugin.name}] ${plugin.usage.synopsis}` : `npm run conformance -- --platform ${plugin.name} ${plugin.usage.synopsis}`);
      expect(platformLine).toMatch(new RegExp(`\\n {33}${plugin.name} +${plugin.label}, ${plugin.contract}${i === 0 ? ' \\(the default\\)' : ''}\\n`));
      const section = sectionOf(stdout, plugin.name);
      expect(section).toContain(plugin.contract);
      for (const option of Object.keys(plugin.options)) expect(section, `--${option} of ${plugin.name}`).toMatch(new RegExp(`--${option}\\b`));
      expect(section.includes('--receiver-port PORT') && section.includes('--receiver-host ADDRESS')).toBe(plugin.receiver !== undefined);
      expect(section.includes('  --wait ')).toBe(plugin.mock !== undefined);
    }
    expect(sectionOf(stdout, 'greenhouse')).toMatch(/--receiver-port PORT\s+the port the checker listens on for the PATCH/);
  });

  it('--platform nope: a usage error (exit 2) naming every known platform, nothing run', async () => {
    const { code, stdout, stderr } = await cli(['--platform', 'nope', 'http://127.0.0.1:1/x']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    const [message] = stderr.split('\n');
    expect(message).toBe(`--platform must be ${either(REGISTERED)}, not nope. To start the bundled mock platform, give --mock.`);
    for (const plugin of CHECKERS) expect(message).toContain(plugin.name);
    expect(stderr).toContain('\n\nUsage: npm run conformance');
  });

  it('every check of every platform is in docs/conformance.md, under an id used once', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/conformance.md'), 'utf8');
    for (const plugin of CHECKERS) {
      const ids = plugin.checks.map((c) => c.id);
      expect(new Set(ids).size, plugin.name).toBe(ids.length);
      expect(ids.filter((id) => !doc.includes(`\`${id}\``)), plugin.name).toEqual([]);
    }
  });
});

describe('the boundaries of a platform\'s folder', () => {
  const dir = path.join(ROOT, 'src/conformance');
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f));
  const platformsDir = path.join(dir, 'platforms');

  /** The platform folder a module is in, or undefined for the checker's shared modules (and the seam and registry). */
  const folderOf = (file: string) => {
    const rel = path.relative(platformsDir, file);
    return rel.startsWith('..') || !rel.includes(path.sep) ? undefined : rel.split(path.sep)[0];
  };
  /** The modules `code` imports, resolved from `file`, that are in a platform's folder other than `file`'s own. */
  function platformImports(file: string, code: string): string[] {
    const specifiers = [...code.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => m[1]!);
    const own = folderOf(file);
    return specifiers
      .map((s) => path.resolve(path.dirname(file), s))
      .filter((target) => folderOf(target) !== undefined && folderOf(target) !== own)
      .map((target) => path.relative(dir, target));
  }

  it('finds an import of a platform\'s folder from the shared modules, and from another platform', () => {
    const cli = path.join(dir, 'cli.ts');
    expect(platformImports(cli, "import { greenhouseChecker } from './platforms/greenhouse/index.js';")).toEqual(['platforms/greenhouse/index.js']);
    expect(platformImports(cli, "import { CHECKERS } from './platforms/index.js';")).toEqual([]);
    const ashby = path.join(platformsDir, 'ashby/checks.ts');
    expect(platformImports(ashby, "import { basicAuth } from '../greenhouse/wire.js';")).toEqual(['platforms/greenhouse/wire.js']);
    expect(platformImports(ashby, "import { basicAuth } from '../../probe.js';\nimport { x } from './wire.js';")).toEqual([]);
  });

  it('no shared module imports a platform\'s folder (they are given the registry), and no platform imports another', () => {
    expect(files.length).toBeGreaterThan(10);
    const found = files
      // The registry, one line a platform, is the one module that imports them.
      .filter((file) => file !== path.join(platformsDir, 'index.ts'))
      .flatMap((file) => platformImports(file, readFileSync(file, 'utf8')).map((target) => `${path.relative(dir, file)} → ${target}`));
    expect(found).toEqual([]);
  });

  it('the command line names no platform', () => {
    const source = readFileSync(path.join(dir, 'cli.ts'), 'utf8').toLowerCase();
    for (const plugin of CHECKERS) {
      expect(source).not.toContain(plugin.name);
      expect(source).not.toContain(plugin.label.toLowerCase());
    }
  });
});

/**
 * A platform shaped as the next ones are (Ashby: the customer's key as a Basic user name, an API the
 * partner posts `assessment.update` to, found through a setting of its own), written here as a
 * plugin and given to the command beside the registry's: nothing else changes.
 */
interface ToyArgs {
  baseUrl: string;
  key: string;
  receiver: ReceiverAddress;
}
const TOY_UPDATE = { check: { id: 'toy.update', section: '§1', name: 'the partner posts assessment.update to the Toy API, with the key' } };
const toy: CheckerPlugin<ToyArgs> = defineChecker<ToyArgs>({
  name: 'toy',
  label: 'Toy ATS',
  contract: 'docs/toy.md',
  calls: 'with RPC calls, each a POST with the customer\'s key as the Basic user name',
  usage: { synopsis: '<base-url> --key KEY [options]', lines: '  --key KEY                    a customer\'s key\n  --toy-level LEVEL            how hard to look' },
  source: 'base URL',
  // --key is Greenhouse's too, of the same type: the two platforms share it.
  options: { key: { type: 'string' }, 'toy-level': { type: 'string' } },
  receiver: {
    for: 'assessment.update',
    namedBy: 'TOY_API_URL',
    answer: (r) => (r.method === 'POST' && r.path === '/assessment.update' ? { status: 200, body: { success: true } } : { status: 404, body: { success: false } }),
  },
  mock: { what: "the checker's Toy API", settings: ['TOY_API_URL'] },
  checks: [TOY_UPDATE.check],
  parse: ({ source, values, receiver }) => {
    if (source === undefined) throw new UsageError('Give the base URL of the partner\'s Toy endpoints');
    const key = stringOption(values, 'key');
    if (key === undefined) throw new UsageError('Give a customer key (--key KEY)');
    return { baseUrl: source, key, receiver: receiver! };
  },
  leaves: (args) => `Before it runs: nothing is sent to ${args.baseUrl}.`,
  run: async (args, io) => {
    const receiver = await openReceiver(toy.receiver!, args.receiver);
    const { results, notRun, runAll } = recorder(io.onResult);
    try {
      await io.partnerSettings(`Toy API running at ${receiver.origin}; the partner under test posts its updates there:`, { TOY_API_URL: receiver.origin });
      await runAll(
        [
          {
            ...TOY_UPDATE.check,
            run: async () => {
              const update = await receiver.waitFor((r) => r.path === '/assessment.update', 5_000);
              if (!update) return { ok: false, detail: 'none came' };
              const expected = `Basic ${Buffer.from(`${args.key}:`).toString('base64')}`;
              return { ok: update.headers.authorization === expected && JSON.parse(update.body).assessment_id === 'a-1', detail: update.body };
            },
          },
        ],
        undefined,
      );
    } finally {
      await receiver.close();
    }
    return { results, notRun };
  },
});

describe('a platform added as one plugin, beside the registry\'s', () => {
  const platforms = [...CHECKERS, toy];

  it('the usage lists it with its options, its receiver\'s and --wait for its mock\'s settings', async () => {
    const usage = usageText(platforms);
    expect(usage).toContain('npm run conformance -- --platform toy <base-url> --key KEY [options]');
    const section = sectionOf(usage, 'toy');
    expect(section).toContain('--platform toy: Toy ATS, docs/toy.md. It calls the partner with RPC calls');
    expect(section).toContain('--toy-level LEVEL');
    expect(section).toMatch(/--receiver-port PORT\s+the port the checker listens on for assessment\.update/);
    expect(section).toMatch(/--receiver-host ADDRESS\s+the address it listens on, which TOY_API_URL names/);
    expect(section).toMatch(/--wait\s+wait for Enter after printing the partner's settings \(TOY_API_URL\)/);
  });

  it.each([
    ['its own option, to another platform', ['http://127.0.0.1:1/callbacks', '--token', 'a', '--token', 'b', '--toy-level', '3'], '--toy-level goes with --platform toy'],
    [
      'an option it shares with Greenhouse',
      ['http://127.0.0.1:1/callbacks', '--token', 'a', '--token', 'b', '--key', 'k'],
      `--key goes with --platform ${either([...CHECKERS.filter((p) => 'key' in p.options).map((p) => p.name), 'toy'])}`,
    ],
    [
      "the receiver's option, to a platform without one",
      ['http://127.0.0.1:1/callbacks', '--token', 'a', '--token', 'b', '--receiver-port', '4100'],
      `--receiver-port goes with --platform ${either([...CHECKERS.filter((p) => p.receiver !== undefined).map((p) => p.name), 'toy'])}`,
    ],
    ['an unknown platform', ['--platform', 'nope'], `--platform must be ${either([...REGISTERED, 'toy'])}, not nope.`],
    ['a wildcard receiver address', ['--platform', 'toy', 'http://127.0.0.1:1/toy', '--key', 'k', '--receiver-host', '0.0.0.0'], '--receiver-host must be one address, not 0.0.0.0: TOY_API_URL names it'],
    ["another platform's option", ['--platform', 'toy', 'http://127.0.0.1:1/toy', '--key', 'k', '--mock'], '--mock goes with --platform hiring-platform'],
  ])('%s: a usage error, exit 2', async (_what, args, message) => {
    const result = await cli(args, platforms);
    expect(result.code).toBe(2);
    expect(result.stderr.startsWith(message), result.stderr.split('\n')[0]).toBe(true);
  });

  it('runs it: its receiver on the port given, its settings printed, Enter awaited (--wait), its checks\' lines and summary', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    let answer: unknown;
    let stdout = '';
    let stderr = '';
    const code = await conformanceCli(
      ['--platform', 'toy', 'http://127.0.0.1:1/toy', '--key', 'k-1', '--receiver-port', String(port), '--wait'],
      {
        stdout: (t) => (stdout += t),
        stderr: (t) => (stderr += t),
        env: {},
        defaultPublicUrl: 'http://127.0.0.1:3000',
        // The partner, started with the printed settings, posts its update as Ashby's partners do.
        waitForEnter: async () => {
          const url = /^TOY_API_URL=(\S+)$/m.exec(stdout)![1]!;
          const res = await request(`${url}/assessment.update`, {
            method: 'POST',
            headers: { authorization: `Basic ${Buffer.from('k-1:').toString('base64')}`, 'content-type': 'application/json' },
            body: JSON.stringify({ assessment_id: 'a-1', timestamp: 1_700_000_000_000 }),
          });
          answer = { status: res.statusCode, body: await res.body.json() };
        },
      },
      platforms,
    );
    const result = { code, stdout, stderr };
    expect(result.stderr).toBe('');
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain(`Toy API running at http://127.0.0.1:${port}; the partner under test posts its updates there:\nTOY_API_URL=http://127.0.0.1:${port}\n`);
    expect(result.stdout).toContain('Start (or restart) the partner with these settings, then press Enter.');
    expect(answer).toEqual({ status: 200, body: { success: true } });
    expect(result.stdout).toContain('✔ §1 the partner posts assessment.update to the Toy API, with the key ({"assessment_id":"a-1","timestamp":1700000000000})');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 0 failed');
  });

  it('a platform may not redefine an option every platform shares, nor give one of another platform\'s name another type', () => {
    expect(() => commandOptions([...platforms, { ...toy, name: 'toy-two', options: { 'results-secret': { type: 'string' } } }])).toThrow(
      'The checker of toy-two declares --results-secret, an option every platform shares',
    );
    expect(() => commandOptions([...platforms, { ...toy, name: 'toy-two', options: { key: { type: 'boolean' } } }])).toThrow(
      "--key of toy-two is not of the type of another platform's --key",
    );
    expect(() => commandOptions([...platforms, toy])).toThrow('distinct');
  });
});
