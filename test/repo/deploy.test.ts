import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARTNER_MANIFEST, loadConfig } from '../../src/partner/config.js';
import { commandOf, copyParts, envOf, ignoredByDocker, instructions, stages } from './dockerfile.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/**
 * The deployment files (docs/deploy.md) cannot be built or started here: there is no Docker. These
 * checks catch what a user would hit first: an image that installs dev dependencies or runs as
 * root, a COPY of a file that moved, a compose file whose load balancer or database lost an
 * instance, and a variable the compose file sets that the deployment guide does not explain.
 */

// --- Dockerfile -----------------------------------------------------------------------------------

const dockerfile = instructions(read('Dockerfile'));
const dockerStages = stages(dockerfile);
const runtime = dockerStages.at(-1) ?? [];
const imageEnv = new Map(runtime.filter((i) => i.name === 'ENV').flatMap((i) => [...envOf(i.args)]));

describe('the Dockerfile', () => {
  it('builds in one stage and runs from another, with only what the build produced', () => {
    expect(dockerStages.length).toBeGreaterThanOrEqual(2);
    const [build] = dockerStages;
    const buildName = /\bAS\s+(\S+)/i.exec(build![0]!.args)?.[1];
    expect(buildName).toBeDefined();
    expect(build!.some((i) => i.name === 'RUN' && /\bnpm run build\b/.test(i.args))).toBe(true);
    expect(runtime[0]!.args).toMatch(/^node:20-bookworm-slim\b/);
    const fromBuild = runtime.filter((i) => i.name === 'COPY' && copyParts(i.args).flags.includes(`--from=${buildName}`));
    expect(fromBuild.flatMap((i) => copyParts(i.args).sources)).toContain('/app/dist');
  });

  it('installs production dependencies only in the runtime stage, and sets NODE_ENV=production', () => {
    const installs = runtime.filter((i) => i.name === 'RUN' && /\bnpm ci\b/.test(i.args));
    expect(installs).not.toHaveLength(0);
    for (const install of installs) expect(install.args).toMatch(/\bnpm ci\b[^&|;]*--omit=dev\b/);
    expect(imageEnv.get('NODE_ENV')).toBe('production');
  });

  it('runs as a user other than root', () => {
    const user = runtime.filter((i) => i.name === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(user!.split(':')[0]).not.toMatch(/^(root|0)$/);
  });

  it('has a HEALTHCHECK that calls /healthz on the port it exposes, with node (slim images have no curl)', () => {
    const healthcheck = runtime.find((i) => i.name === 'HEALTHCHECK');
    expect(healthcheck).toBeDefined();
    const command = commandOf(healthcheck!.args.replace(/^(--\S+\s+)*CMD\s+/, ''));
    expect(command).toContain('/healthz');
    expect(command).toMatch(/^node\b/);
    const exposed = runtime.find((i) => i.name === 'EXPOSE')?.args;
    expect(exposed).toBe(imageEnv.get('PORT'));
    // The server must listen beyond the container's loopback for the load balancer to reach it.
    expect(imageEnv.get('HOST')).toBe('0.0.0.0');
  });

  it('starts what `npm start` starts, without npm in between (SIGTERM must reach node)', () => {
    const cmd = runtime.filter((i) => i.name === 'CMD').at(-1);
    expect(cmd?.args.startsWith('[')).toBe(true);
    const pkg = JSON.parse(read('package.json')) as { scripts: { start: string } };
    expect(commandOf(cmd!.args)).toBe(pkg.scripts.start);
  });

  it('copies from the build context only paths that exist and that .dockerignore lets through', () => {
    const dockerignore = read('.dockerignore');
    const sources = dockerfile
      .filter((i) => i.name === 'COPY' || i.name === 'ADD')
      .map((i) => copyParts(i.args))
      .filter((c) => !c.flags.some((f) => f.startsWith('--from=')))
      .flatMap((c) => c.sources);
    expect(sources).toEqual(expect.arrayContaining(['package-lock.json', 'src', 'views/partner']));
    for (const source of sources) {
      expect(existsSync(path.join(ROOT, source)), `${source} exists`).toBe(true);
      expect(ignoredByDocker(source, dockerignore), `${source} is not in .dockerignore`).toBe(false);
    }
  });

  it("ships the manifest the server reads the vendor's name from, where it looks for it", () => {
    const copies = runtime.filter((i) => i.name === 'COPY').map((i) => copyParts(i.args));
    const workdir = runtime.filter((i) => i.name === 'WORKDIR').at(-1)!.args;
    const manifest = path.relative(ROOT, DEFAULT_PARTNER_MANIFEST);
    expect(copies.some((c) => c.sources.includes(manifest) && path.resolve(workdir, c.dest) === path.join(workdir, manifest))).toBe(true);
  });

  it("carries the vendor's folder at the path it has in the checkout, so the manifest a fork keeps there is found by PARTNER_MANIFEST", () => {
    const workdir = runtime.filter((i) => i.name === 'WORKDIR').at(-1)!.args;
    const copies = runtime.filter((i) => i.name === 'COPY').map((i) => copyParts(i.args));
    const provider = copies.find((c) => !c.flags.some((f) => f.startsWith('--from=')) && c.sources.includes('src/provider'));
    expect(provider).toBeDefined();
    expect(path.resolve(workdir, provider!.dest)).toBe(path.join(workdir, 'src/provider'));
  });

  it('keeps secrets, local data and installed modules out of the build context', () => {
    const dockerignore = read('.dockerignore');
    for (const file of ['.env', 'deploy/.env', 'deploy/staging/.env', 'src/provider/.env', 'node_modules', 'data/partner.db', 'dist', '.git']) {
      expect(ignoredByDocker(file, dockerignore), file).toBe(true);
    }
  });
});

// --- compose.yaml ---------------------------------------------------------------------------------

/**
 * The lines of the block under `keys` (a path of block-mapping keys), without comments or blank
 * lines: enough YAML for compose.yaml, which the kit does not otherwise need a parser for.
 */
function block(lines: string[], ...keys: string[]): string[] | undefined {
  let current = lines;
  for (const key of keys) {
    const indent = current.length > 0 ? /^ */.exec(current[0]!)![0].length : 0;
    const start = current.findIndex((line) => line.slice(indent).startsWith(`${key}:`) && /^ */.exec(line)![0].length === indent);
    if (start === -1) return undefined;
    const end = current.findIndex((line, i) => i > start && /^ */.exec(line)![0].length <= indent);
    current = current.slice(start + 1, end === -1 ? undefined : end);
  }
  return current;
}

/** The keys directly under a block. */
const keysOf = (lines: string[]) => {
  const indent = lines.length > 0 ? /^ */.exec(lines[0]!)![0].length : 0;
  return lines.filter((l) => /^ */.exec(l)![0].length === indent && !l.trimStart().startsWith('- ')).map((l) => l.trim().split(':')[0]!);
};

/** `KEY: value` lines (or `- KEY=value` items) directly under a block. */
function mapping(lines: string[] | undefined): Map<string, string> {
  const result = new Map<string, string>();
  if (!lines || lines.length === 0) return result;
  const indent = /^ */.exec(lines[0]!)![0].length;
  for (const line of lines) {
    if (/^ */.exec(line)![0].length !== indent) continue;
    const m = /^\s*(?:- )?([\w.-]+)\s*[:=]\s*(.*)$/.exec(line);
    if (m) result.set(m[1]!, m[2]!.replace(/^"(.*)"$/, '$1'));
  }
  return result;
}

const composeText = read('compose.yaml');
const composeLines = composeText.split('\n').filter((line) => line.trim() !== '' && !/^\s*#/.test(line));
const services = block(composeLines, 'services') ?? [];
const serviceNames = keysOf(services);

/** A service's lines, with what it merges in (`<<: *anchor`) from a top-level `key: &anchor`. */
function service(name: string): string[] {
  const own = block(services, name) ?? [];
  const merged = own.flatMap((line) => {
    const alias = /^\s*<<:\s*\*([\w-]+)\s*$/.exec(line)?.[1];
    if (!alias) return [];
    const anchorKey = composeLines.find((l) => new RegExp(`^[\\w-]+:\\s*&${alias}\\s*$`).test(l))?.split(':')[0];
    return anchorKey ? (block(composeLines, anchorKey) ?? []) : [];
  });
  const reindent = (lines: string[]) => {
    const indent = lines.length > 0 ? /^ */.exec(lines[0]!)![0].length : 0;
    return lines.map((l) => l.slice(indent));
  };
  return [...reindent(merged), ...reindent(own.filter((l) => !/^\s*<<:/.test(l)))];
}

const environmentOf = (name: string) => mapping(block(service(name), 'environment'));
const imageOf = (name: string) => mapping(service(name)).get('image');
const partners = serviceNames.filter((name) => service(name).some((l) => /^build:/.test(l)));
const database = serviceNames.find((name) => /^postgres:/.test(imageOf(name) ?? ''));
const balancer = serviceNames.find((name) => /^nginx:/.test(imageOf(name) ?? ''));

/** `- source:target[:mode]` volume items of a service. */
const volumesOf = (name: string) =>
  (block(service(name), 'volumes') ?? []).map((l) => l.replace(/^\s*-\s*/, '').replace(/^"(.*)"$/, '$1').split(':'));

describe('compose.yaml', () => {
  it('runs PostgreSQL on a named volume, with a pg_isready health check', () => {
    expect(database).toBeDefined();
    const healthcheck = block(service(database!), 'healthcheck');
    expect(healthcheck?.join('\n')).toContain('pg_isready');
    const [volume] = volumesOf(database!).find(([, target]) => target === '/var/lib/postgresql/data') ?? [];
    expect(volume).toBeDefined();
    expect(keysOf(block(composeLines, 'volumes') ?? [])).toContain(volume);
  });

  it('runs two partner instances on that database, started once it is healthy', () => {
    expect(partners).toHaveLength(2);
    for (const name of partners) {
      const url = environmentOf(name).get('DATABASE_URL');
      expect(url, name).toMatch(new RegExp(`^postgres(ql)?://.+@${database}:5432/\\w+$`));
      expect(block(service(name), 'depends_on', database!)?.join('\n'), name).toMatch(/condition:\s*service_healthy/);
    }
    // The same settings on both: one instance with another link secret would sign links the other refuses.
    expect([...environmentOf(partners[1]!)]).toEqual([...environmentOf(partners[0]!)]);
  });

  it('writes no secret into the file: each comes from the environment or .env', () => {
    const env = new Map([...environmentOf(partners[0]!), ...environmentOf(database!)]);
    const secrets = [...env.keys()].filter((key) => /SECRET|PASSWORD|TOKEN|SMTP_URL/.test(key));
    expect(secrets).toEqual(expect.arrayContaining(['CANDIDATE_LINK_SECRET', 'ADMIN_PASSWORD', 'POSTGRES_PASSWORD']));
    for (const key of secrets) expect(env.get(key), key).toMatch(/^\$\{\w+:?[-?][^}]*\}$/);
    expect(env.get('DATABASE_URL')).toMatch(/^postgres(ql)?:\/\/\w+:\$\{\w+:\?[^}]*\}@/);
  });

  it("gives both instances every variable of the settings file — .env, or the file ENV_FILE names — a provider's own settings too", () => {
    for (const name of partners) {
      const envFile = service(name).join('\n');
      // The long form: a file that is not there is no error (the settings may all come from the shell).
      expect(envFile, name).toMatch(/^env_file:\n\s+- path: \$\{ENV_FILE:-\.env\}\n\s+required: false$/m);
    }
  });

  it("keeps the image's HOST and PORT whatever the settings file says, and passes the vendor's manifest and name", () => {
    const env = environmentOf(partners[0]!);
    expect(env.get('HOST')).toBe(imageEnv.get('HOST'));
    expect(env.get('PORT')).toBe(imageEnv.get('PORT'));
    expect(env.get('PARTNER_MANIFEST')).toBe('${PARTNER_MANIFEST:-}');
    expect(env.get('PARTNER_NAME')).toBe('${PARTNER_NAME:-}');
  });

  it('publishes a load balancer on port 8080 whose config names both instances, and PUBLIC_URL is its address', () => {
    expect(balancer).toBeDefined();
    const ports = (block(service(balancer!), 'ports') ?? []).map((l) => l.replace(/^\s*-\s*/, '').replace(/^"(.*)"$/, '$1'));
    // By default; LB_PORT moves a second deployment on the same host elsewhere.
    expect(ports).toContain('${LB_PORT:-8080}:80');
    expect(environmentOf(partners[0]!).get('PUBLIC_URL')).toMatch(/:8080\}?$/);

    const mount = volumesOf(balancer!).find(([, target]) => target?.startsWith('/etc/nginx/'));
    expect(mount).toBeDefined();
    expect(existsSync(path.join(ROOT, mount![0]!))).toBe(true);
    const conf = read(mount![0]!).replace(/#.*$/gm, '');
    const upstream = /upstream\s+([\w-]+)\s*\{([^}]*)\}/.exec(conf);
    expect(upstream).not.toBeNull();
    const servers = [...upstream![2]!.matchAll(/^\s*server\s+([^\s;]+)([^;]*);/gm)];
    expect(servers.map((m) => m[1]).sort()).toEqual(partners.map((name) => `${name}:${imageEnv.get('PORT')}`).sort());
    expect(conf).toMatch(new RegExp(`proxy_pass\\s+http://${upstream![1]}\\s*;`));
    // With the port: the dashboard answers on PUBLIC_URL's host only, and $host drops ":8080" (421).
    expect(conf).toMatch(/proxy_set_header\s+Host\s+\$http_host\s*;/);
    // Passive health checks: an instance that stopped answering is left out for a while.
    for (const [, name, parameters] of servers) expect(parameters, name).toMatch(/\bmax_fails=\d+/);
  });

  it('has the load balancer forward the client address and protocol, which TRUST_PROXY lets the instances read', () => {
    const conf = read(volumesOf(balancer!).find(([, target]) => target?.startsWith('/etc/nginx/'))![0]!).replace(/#.*$/gm, '');
    expect(conf).toMatch(/proxy_set_header\s+X-Forwarded-For\s+\$proxy_add_x_forwarded_for\s*;/);
    expect(conf).toMatch(/proxy_set_header\s+X-Forwarded-Proto\s+\$scheme\s*;/);
    expect(environmentOf(partners[0]!).get('TRUST_PROXY')).toMatch(/^(\$\{TRUST_PROXY:-)?1\}?$/);
  });
});

describe('the settings a deployment starts with', () => {
  /** What a user puts in `.env` for each required `${NAME:?…}` (docs/deploy.md, "Run it"). */
  const filledIn: Record<string, string> = {
    POSTGRES_PASSWORD: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822c',
    CANDIDATE_LINK_SECRET: 'Wm9vbS1sb25nLXJhbmRvbS1saW5rLXNlY3JldC0wMTIzNDU2Nzg5',
    ADMIN_PASSWORD: 'k3Vq9+TzR0bL/8wXeN2f',
    PLATFORM_URL: 'https://platform.example.com/integrations',
    PARTNER_CODENAME: 'acme-assessments',
  };
  /** `${NAME:?…}` filled in, `${NAME:-default}` as its default, as Compose does with an empty .env otherwise. */
  const interpolate = (value: string) =>
    value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_all, name: string, kind?: string, rest?: string) =>
      kind === '-' ? (rest ?? '') : (filledIn[name] ?? ''),
    );

  it('when the image runs under compose.yaml (HOST=0.0.0.0, production), then the partner accepts its settings', () => {
    const env = Object.fromEntries([...imageEnv, ...[...environmentOf(partners[0]!)].map(([k, v]) => [k, interpolate(v)] as const)]);
    expect(env).toMatchObject({ HOST: '0.0.0.0', NODE_ENV: 'production' });
    expect(() => loadConfig(env)).not.toThrow();
  });

  it('when the image runs alone on SQLite with the secrets docs/deploy.md lists, then the partner accepts its settings', () => {
    const env = { ...Object.fromEntries(imageEnv), PUBLIC_URL: 'http://localhost:3000', ...filledIn };
    expect(() => loadConfig(env)).not.toThrow();
  });
});

// --- docs/deploy.md -------------------------------------------------------------------------------

describe('docs/deploy.md', () => {
  const doc = read('docs/deploy.md');

  it('explains every variable the deployment sets or asks for', () => {
    const set = [...serviceNames.flatMap((name) => [...environmentOf(name).keys()]), ...imageEnv.keys()];
    const interpolated = [...composeLines.join('\n').matchAll(/\$\{(\w+)/g)].map((m) => m[1]!);
    const names = [...new Set([...set, ...interpolated])];
    expect(names).toEqual(expect.arrayContaining(['DATABASE_URL', 'JOB_LEASE_SECONDS', 'POSTGRES_PASSWORD', 'HOST']));
    expect(names.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });

  it('names the grace period the server reads, and keeps it below the time Docker waits before SIGKILL', () => {
    expect(read('src/partner/config.ts')).toContain('SHUTDOWN_GRACE_SECONDS');
    expect(doc).toContain('`SHUTDOWN_GRACE_SECONDS`');
    const grace = Number(/\$\{SHUTDOWN_GRACE_SECONDS:-(\d+)\}/.exec(composeText)?.[1]);
    const stop = Number(/^\s*stop_grace_period:\s*(\d+)s\s*$/m.exec(service(partners[0]!).join('\n'))?.[1]);
    expect(grace).toBeGreaterThan(0);
    expect(stop).toBeGreaterThan(grace);
  });
});
