import { DEFAULT_JOB_LEASE_MS } from './jobs/lease.js';
import { DEFAULT_DATABASE_TIMEOUT_MS } from '../lib/sql.js';
import addressparser from 'nodemailer/lib/addressparser/index.js';
import { z } from 'zod';
import { PARTNER_KINDS, type PartnerKind } from '../contract/decisions.js';
import { isBareAddress } from './mail/address.js';
import { kitPlatforms } from './platforms/index.js';
import type { PlatformDefinition } from './platforms/platform.js';
import { PARTNER_DEFAULTS, isLoopbackHost, publicUrlOf } from './defaults.js';
import { LOG_FORMATS, type LogFormat } from '../lib/http/logger.js';
import { ManifestError, readManifest } from '../contract/manifest.js';
import { packageRoot } from '../lib/package-root.js';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { VENDOR_SECRET_MIN_LENGTH } from '../contract/vendor-signature.js';

/**
 * Every setting the partner server reads, parsed once at start-up.
 * `.env.example` documents each key; a bad value stops start-up with one message naming every
 * variable to fix (see `ConfigError`).
 */
const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** "Name <address>" or a bare address: exactly one, on one line (nodemailer would read a list as several). */
const oneMailbox = z
  .string()
  .trim()
  .min(3)
  .max(300)
  .refine((v) => {
    if (/[\p{Cc}\u2028\u2029]/u.test(v)) return false;
    const parsed = addressparser(v, { flatten: true });
    return parsed.length === 1 && isBareAddress(parsed[0]!.address);
  }, 'must be one address, e.g. "Acme Assessments <no-reply@acme.example>"');

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' });
const NOT_A_PORT = 'must be a port number 0–65535';
const portNumber = z.coerce.number({ error: NOT_A_PORT }).int(NOT_A_PORT).min(0, NOT_A_PORT).max(65535, NOT_A_PORT);

/**
 * Signs candidate and results links when CANDIDATE_LINK_SECRET is unset, on a server only this
 * machine can reach: anyone who reads this file can forge links, so production, and any server
 * that listens or is published on an address other than loopback whatever NODE_ENV says, refuses
 * to start with it (see `loadConfig`); where it is used, start-up logs a warning
 * (`links.developmentKey`).
 */
export const DEV_CANDIDATE_LINK_SECRET = 'dev-only-candidate-link-secret-not-for-production';
/** The dashboard's password where only this machine can reach the server (the same rule). */
export const DEV_ADMIN_PASSWORD = 'admin';
const MIN_LINK_SECRET = 32;
const MIN_PRODUCTION_PASSWORD = 12;
/**
 * [kit decision] Passwords of 12 characters or more that are among the first anyone guesses,
 * refused as ADMIN_PASSWORD wherever the production rules apply. Compared ignoring case and
 * everything but letters and digits ("Password-1234" is "password1234"). docs/configuration.md
 * lists them.
 */
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  'password1234',
  'password12345',
  'password123456',
  'passwordpassword',
  'password1password1',
  '123456789012',
  '1234567890123',
  '12345678901234',
  '123456123456',
  '123123123123',
  'qwerty123456',
  'qwertyqwerty',
  'qwertyuiop12',
  'qwertyuiop123',
  'qwertyuiopasdf',
  '1q2w3e4r5t6y',
  '1qaz2wsx3edc',
  'iloveyou1234',
  'letmeinletmein',
  'changeme1234',
  'changemechangeme',
  'welcome12345',
  'welcome123456',
  'secretpassword',
  'correcthorsebatterystaple',
]);
const MIN_ADMIN_TOKEN = 24;
const DAY_MS = 24 * 60 * 60_000;

const ConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default(PARTNER_DEFAULTS.HOST),
  PORT: portNumber.default(PARTNER_DEFAULTS.PORT),
  /** Where the partner server is reachable by the platform and by candidates (links in e-mails, report urls). */
  PUBLIC_URL: httpUrl.optional(),
  DATABASE_PATH: z.string().min(1).default(PARTNER_DEFAULTS.DATABASE_PATH),
  /** postgres://user:password@host:5432/database: PostgreSQL instead of SQLite at DATABASE_PATH (docs/deploy.md). */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' }).optional(),
  /**
   * How long one call to PostgreSQL may take, the wait for a connection included, before it fails
   * and the request answers 503: under the platform's 10 s callback budget, with room for the rest
   * of the request.
   */
  DATABASE_TIMEOUT_SECONDS: z.coerce.number().min(0.5).max(8).default(DEFAULT_DATABASE_TIMEOUT_MS / 1000),
  /** How long an instance holds a claimed item of background work before another may take it over (PostgreSQL). */
  JOB_LEASE_SECONDS: z.coerce.number().int().min(5).max(3600).default(DEFAULT_JOB_LEASE_MS / 1000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** json: one JSON object per line; pretty: readable lines for a terminal (`npm run dev` defaults to it). */
  LOG_FORMAT: z.enum(LOG_FORMATS).default('json'),
  /** Express `trust proxy`: off unless set. A hop count ("1") or a list of addresses/subnets. */
  TRUST_PROXY: z.string().optional(),
  /** Largest JSON body the callbacks accept, in bytes. */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10 * 1024 * 1024).default(64 * 1024),
  /** Seconds in-flight requests get to finish after SIGTERM before the process exits anyway. */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(300).default(10),
  /** Seed one demo account with a few tests when the database has no accounts (quick start). */
  DEMO_SEED: boolean.default(false),
  /** What this partner is, as registered: decides the wording and what report updates may carry. */
  PARTNER_KIND: z.enum(PARTNER_KINDS).default('assessment'),
  /** HS256 key for candidate and results links. */
  CANDIDATE_LINK_SECRET: z.string().min(MIN_LINK_SECRET, `must be at least ${MIN_LINK_SECRET} characters`).optional(),
  /** How long an invitation link works after the e-mail was sent. */
  CANDIDATE_LINK_TTL_DAYS: z.coerce.number().positive().max(365).default(14),
  /** How long the recruiter's results link (report urls.show) works. */
  RESULTS_LINK_TTL_DAYS: z.coerce.number().positive().max(3650).default(365),
  /**
   * Signs the results the vendor's product posts to /vendor/reports/{id}/result (X-Vendor-Signature,
   * HMAC-SHA256). Unset: that endpoint answers 401 "results endpoint not configured".
   */
  VENDOR_RESULTS_SECRET: z
    .string()
    .min(VENDOR_SECRET_MIN_LENGTH, `must be at least ${VENDOR_SECRET_MIN_LENGTH} characters (e.g. \`openssl rand -hex 32\`)`)
    .optional(),
  /** The dashboard's Basic-auth user name. */
  ADMIN_USERNAME: z.string().trim().min(1).max(100).default('admin'),
  /** The dashboard's Basic-auth password; outside production it defaults to "admin". */
  ADMIN_PASSWORD: z.string().min(1).max(200).optional(),
  /** Alternatively a token, sent as `Authorization: Bearer` or as the Basic-auth password. */
  ADMIN_TOKEN: z.string().min(MIN_ADMIN_TOKEN, `must be at least ${MIN_ADMIN_TOKEN} characters`).max(500).optional(),
  /** json: each e-mail is rendered as JSON and kept with its outbox row (shown in the dashboard), not sent; smtp: sent through SMTP_URL. */
  MAIL_TRANSPORT: z.enum(['json', 'smtp']).default('json'),
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  /** SMTP connections kept open at once, and e-mails sent at once. */
  SMTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(50).default(5),
  /** The sender of e-mails; without a display name, PARTNER_NAME is its name. */
  MAIL_FROM: oneMailbox.default('no-reply@partner.localhost'),
  /** The vendor's name on the candidate's pages, the results page, the dashboard and e-mails; default: the manifest's `name`. */
  PARTNER_NAME: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .refine((v) => !/[\p{Cc}\u2028\u2029]/u.test(v), 'must be one line of text')
    .optional(),
  /** The partner record (`npm run register`, `npm run dev`); the server reads its `name` when PARTNER_NAME is unset. */
  PARTNER_MANIFEST: z.string().min(1).optional(),
});

/** The kit's manifest, scripts/partner-manifest.json of this project (from src/ under tsx and from dist/ alike). */
export const DEFAULT_PARTNER_MANIFEST = path.join(packageRoot(import.meta.url), 'scripts', 'partner-manifest.json');

/**
 * [kit decision] The vendor's name, found in one place: PARTNER_NAME when set, else the `name` of
 * the manifest the partner registers with (PARTNER_MANIFEST, else scripts/partner-manifest.json),
 * read once at start-up. A fork that renames its manifest is renamed everywhere. Returns the name,
 * or the problem to report.
 */
function partnerNameOf(env: { PARTNER_NAME?: string; PARTNER_MANIFEST?: string }, publicUrl: string): { name: string } | { problem: string } {
  if (env.PARTNER_NAME !== undefined) return { name: env.PARTNER_NAME };
  const file = env.PARTNER_MANIFEST ?? DEFAULT_PARTNER_MANIFEST;
  if (env.PARTNER_MANIFEST === undefined && !existsSync(file)) {
    return { problem: `PARTNER_NAME: is required when there is no manifest to read the vendor's name from (${file})` };
  }
  try {
    return { name: readManifest(path.resolve(file), publicUrl).partner.name.trim() };
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    return { problem: `PARTNER_MANIFEST: the vendor's name is read from it unless PARTNER_NAME is set: ${err.problems.join('; ')}` };
  }
}

/**
 * MAIL_FROM as sent: with its own display name, else with the vendor's — quoted when it holds a
 * character that would otherwise end it or start another address (a comma, `<`, `"`, `@`…).
 */
function senderOf(mailFrom: string, name: string): string {
  const [parsed] = addressparser(mailFrom, { flatten: true });
  if (parsed?.name?.trim()) return mailFrom;
  const phrase = /^[\p{L}\p{N} !#$%&'*+\-/=?^_`{|}~]+$/u.test(name) ? name : `"${name.replace(/["\\]/g, '\\$&')}"`;
  return `${phrase} <${parsed!.address}>`;
}

export type Config = {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  publicUrl: string;
  /**
   * Only this machine can reach the server: HOST and PUBLIC_URL are both loopback (the sandbox, the
   * tests). The same rule that lets the development secrets be used outside production.
   */
  localOnly: boolean;
  databasePath: string;
  /** PostgreSQL (DATABASE_URL), when set: then DATABASE_PATH is not used. */
  databaseUrl: string | undefined;
  /** On PostgreSQL, how long one call (a query, or a transaction) may take, from asking for a connection to the answer. */
  databaseTimeoutMs: number;
  /** How long a claimed item of background work is an instance's (jobs/lease.ts). */
  jobLeaseMs: number;
  logLevel: z.infer<typeof ConfigSchema>['LOG_LEVEL'];
  logFormat: LogFormat;
  trustProxy: boolean | number | string;
  bodyLimitBytes: number;
  shutdownGraceMs: number;
  demoSeed: boolean;
  kind: PartnerKind;
  /** The vendor's name (PARTNER_NAME, else the manifest's `name`): pages, the dashboard, e-mails. */
  partnerName: string;
  links: {
    secret: string;
    candidateTtlMs: number;
    resultsTtlMs: number;
    /** Links are signed with DEV_CANDIDATE_LINK_SECRET, which anyone can read: start-up warns. */
    developmentKey: boolean;
  };
  /** Results pushed over HTTP by the vendor's product (docs/results-endpoint.md). */
  vendorResults: { secret: string | undefined };
  /**
   * Each platform's own settings, by its name, as its definition's `settings` schema parsed them
   * (`PlatformDefinition.settings`): the platforms given to `loadConfig`.
   */
  platformSettings: Readonly<Record<string, unknown>>;
  admin: { username: string; password: string | undefined; token: string | undefined };
  mail: { transport: 'json' | 'smtp'; smtpUrl: string | undefined; from: string; maxConnections: number };
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration; fix these environment variables:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses `env` (normally `process.env`) with the kit's settings and those of each platform in
 * `platforms` (the kit's when not given: the registry, platforms/index.ts); throws a `ConfigError`
 * listing every problem at once, the platforms' with the kit's.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, platforms: readonly PlatformDefinition[] = kitPlatforms()): Config {
  // An empty string in .env means "not set", so defaults apply.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ConfigSchema.safeParse(present);
  // Rules across variables read the raw values, so they are reported together with any bad value.
  const problems = parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  const platformSettings = parsePlatformSettings(present, platforms, problems);
  const production = present.NODE_ENV === 'production';
  const makeOne = `a random string of at least ${MIN_LINK_SECRET} characters, e.g. \`openssl rand -base64 48\``;
  // Production's rules hold wherever another machine can reach the server, whatever NODE_ENV says:
  // its development link key and admin password are published in this file.
  const elsewhere = reachableFromElsewhere(present);
  const exposure = production ? undefined : elsewhere;
  const strict = production || exposure !== undefined;
  const where = production ? 'in production' : `when the server is reachable from other machines (${exposure})`;
  if (strict && present.CANDIDATE_LINK_SECRET === undefined) {
    problems.push(
      production
        ? `CANDIDATE_LINK_SECRET: is required in production (${makeOne})`
        : `CANDIDATE_LINK_SECRET: is required ${where}: without it, candidate and results links are signed with the development key ` +
            `published in the kit's source, and anyone can forge them. Set it to ${makeOne}`,
    );
  } else if (strict && present.CANDIDATE_LINK_SECRET === DEV_CANDIDATE_LINK_SECRET) {
    problems.push(
      `CANDIDATE_LINK_SECRET: is the public development key, published in the kit's source: anyone could forge candidate and results links. Set it to ${makeOne}`,
    );
  }
  if (strict && present.ADMIN_PASSWORD === undefined && present.ADMIN_TOKEN === undefined) {
    problems.push(
      production
        ? 'ADMIN_PASSWORD: is required in production (or set ADMIN_TOKEN): the dashboard has no default password there'
        : `ADMIN_PASSWORD: is required ${where}, or ADMIN_TOKEN: the development password, "${DEV_ADMIN_PASSWORD}", is published in the kit's source`,
    );
  }
  if (strict && present.ADMIN_PASSWORD !== undefined) {
    const password = present.ADMIN_PASSWORD;
    const weakness = guessable(password, present.ADMIN_USERNAME?.trim() || 'admin');
    if (password.length < MIN_PRODUCTION_PASSWORD) {
      problems.push(`ADMIN_PASSWORD: must be at least ${MIN_PRODUCTION_PASSWORD} characters ${where}`);
    } else if (weakness) {
      problems.push(
        `ADMIN_PASSWORD: ${weakness}, so it is refused ${where}. Choose one that is hard to guess (e.g. \`openssl rand -base64 18\`), or set ADMIN_TOKEN instead`,
      );
    }
  }
  if (present.MAIL_TRANSPORT === 'smtp' && present.SMTP_URL === undefined) {
    problems.push('SMTP_URL: is required when MAIL_TRANSPORT is smtp (e.g. smtps://user:pass@smtp.example.com)');
  }
  const named = parsed.success ? partnerNameOf(parsed.data, publicUrlOf(parsed.data)) : undefined;
  if (named && 'problem' in named) problems.push(named.problem);
  if (!parsed.success || problems.length > 0 || !named || 'problem' in named) throw new ConfigError(problems);
  const c = parsed.data;

  return {
    env: c.NODE_ENV,
    host: c.HOST,
    port: c.PORT,
    publicUrl: publicUrlOf(c),
    localOnly: elsewhere === undefined,
    databasePath: c.DATABASE_PATH,
    databaseUrl: c.DATABASE_URL,
    databaseTimeoutMs: c.DATABASE_TIMEOUT_SECONDS * 1000,
    jobLeaseMs: c.JOB_LEASE_SECONDS * 1000,
    logLevel: c.LOG_LEVEL,
    logFormat: c.LOG_FORMAT,
    trustProxy: parseTrustProxy(c.TRUST_PROXY),
    bodyLimitBytes: c.BODY_LIMIT_BYTES,
    shutdownGraceMs: c.SHUTDOWN_GRACE_SECONDS * 1000,
    demoSeed: c.DEMO_SEED,
    kind: c.PARTNER_KIND,
    partnerName: named.name,
    links: {
      secret: c.CANDIDATE_LINK_SECRET ?? DEV_CANDIDATE_LINK_SECRET,
      developmentKey: (c.CANDIDATE_LINK_SECRET ?? DEV_CANDIDATE_LINK_SECRET) === DEV_CANDIDATE_LINK_SECRET,
      candidateTtlMs: c.CANDIDATE_LINK_TTL_DAYS * DAY_MS,
      resultsTtlMs: c.RESULTS_LINK_TTL_DAYS * DAY_MS,
    },
    vendorResults: { secret: c.VENDOR_RESULTS_SECRET },
    platformSettings,
    admin: {
      username: c.ADMIN_USERNAME,
      // With only a token configured, the token is the way in; a default password would be a second door.
      password: c.ADMIN_PASSWORD ?? (strict || c.ADMIN_TOKEN !== undefined ? undefined : DEV_ADMIN_PASSWORD),
      token: c.ADMIN_TOKEN,
    },
    mail: {
      transport: c.MAIL_TRANSPORT,
      smtpUrl: c.SMTP_URL,
      from: senderOf(c.MAIL_FROM, named.name),
      maxConnections: c.SMTP_MAX_CONNECTIONS,
    },
  };
}

/**
 * Each platform's settings, parsed from the same variables as the kit's, by platform name; their
 * problems added to `problems`, so one message names every setting to fix. Two platforms, or a
 * platform and the kit, reading one variable is the kit's error, not the operator's: thrown.
 */
function parsePlatformSettings(present: Record<string, string | undefined>, platforms: readonly PlatformDefinition[], problems: string[]): Record<string, unknown> {
  const owners = new Map<string, string>(Object.keys(ConfigSchema.shape).map((key) => [key, 'the kit']));
  const settings: Record<string, unknown> = {};
  for (const platform of platforms) {
    if (!platform.settings) continue;
    for (const key of settingKeys(platform.settings)) {
      const owner = owners.get(key);
      if (owner) throw new Error(`The platform "${platform.name}" reads the setting ${key}, which ${owner} reads too: a setting has one owner`);
      owners.set(key, `the platform "${platform.name}"`);
    }
    const parsed = platform.settings.safeParse(present);
    if (parsed.success) settings[platform.name] = parsed.data;
    else problems.push(...parsed.error.issues.map((i) => `${i.path.join('.') || platform.name}: ${i.message}`));
  }
  return settings;
}

/** The variables a settings schema reads: an object's keys, through any transform. */
function settingKeys(schema: z.ZodType): string[] {
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  if (schema instanceof z.ZodPipe) return settingKeys(schema.in as z.ZodType);
  return [];
}

/**
 * A platform's own settings, as `loadConfig` parsed them; an error when its definition was not
 * given to `loadConfig` (an entry point passes the same platforms to both).
 */
export function settingsOf<S>(config: Pick<Config, 'platformSettings'>, platform: PlatformDefinition<S>): S {
  if (!platform.settings) return undefined as S;
  if (!(platform.name in config.platformSettings)) {
    throw new Error(`The settings of the platform "${platform.name}" were not loaded: pass its definition to loadConfig as well`);
  }
  return config.platformSettings[platform.name] as S;
}

/**
 * What start-up warns about in settings it accepts, one sentence each (`startPartner` logs them).
 * TRUST_PROXY with a loopback PUBLIC_URL most likely has no proxy in front: then any client's own
 * X-Forwarded-* headers are believed.
 */
export function configWarnings(config: Pick<Config, 'trustProxy' | 'publicUrl'>): string[] {
  const warnings: string[] = [];
  if (config.trustProxy !== false && config.trustProxy !== 0 && isLoopbackHost(new URL(config.publicUrl).hostname)) {
    warnings.push(
      `TRUST_PROXY is set while PUBLIC_URL (${config.publicUrl}) is a loopback address, so most likely no proxy stands in front: ` +
        "then a client's own X-Forwarded-Host passes the dashboard's host check (which keeps DNS-rebinding pages out) " +
        'and its X-Forwarded-For chooses the address the sign-in limit counts. Unset TRUST_PROXY unless a proxy you run forwards to this server',
    );
  }
  return warnings;
}

/**
 * Why machines other than this one can reach the server, or undefined when only this one can: it
 * listens on (HOST) or is published at (PUBLIC_URL, by default http://HOST:PORT) an address that is
 * not loopback.
 */
function reachableFromElsewhere(env: { HOST?: string; PUBLIC_URL?: string; PORT?: string }): string | undefined {
  const publicUrl = publicUrlOf(env);
  // An unparseable URL is reported as PUBLIC_URL's own problem.
  if (URL.canParse(publicUrl) && !isLoopbackHost(new URL(publicUrl).hostname)) return `its public URL is ${publicUrl}, not a loopback address`;
  const host = env.HOST ?? PARTNER_DEFAULTS.HOST;
  if (!isLoopbackHost(host)) return `HOST is ${host}, not a loopback address`;
  return undefined;
}

/**
 * Why `password` is among the first an attacker tries, as the rest of a sentence that starts with
 * "ADMIN_PASSWORD", or undefined. A user name shorter than 3 characters is not looked for: too many
 * good passwords would contain it.
 */
function guessable(password: string, username: string): string | undefined {
  if (/^(.)\1*$/su.test(password)) return 'is one character repeated, found as soon as its length is tried';
  if (username.length >= 3 && password.toLowerCase().includes(username.toLowerCase())) {
    return `contains the user name (ADMIN_USERNAME, "${username}"), which anyone trying the dashboard types first`;
  }
  if (COMMON_PASSWORDS.has(password.toLowerCase().replace(/[^\p{L}\p{N}]/gu, ''))) {
    return 'is one of the most common passwords, on every list an attacker tries';
  }
  return undefined;
}

function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
