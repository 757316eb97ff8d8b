import { z } from 'zod';

/**
 * Every setting the partner server reads, parsed once at start-up.
 * `.env.example` documents each key; a bad value stops start-up with one message naming every
 * variable to fix (see `ConfigError`).
 */
const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const ConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Where the partner server is reachable by the platform and by candidates (links in e-mails, report urls). */
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATABASE_PATH: z.string().min(1).default('./data/partner.db'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Express `trust proxy`: off unless set. A hop count ("1") or a list of addresses/subnets. */
  TRUST_PROXY: z.string().optional(),
  /** Largest JSON body the callbacks accept, in bytes. */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10 * 1024 * 1024).default(64 * 1024),
  /** Seconds in-flight requests get to finish after SIGTERM before the process exits anyway. */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(300).default(10),
  /** Seed one demo account with a few tests when the database has no accounts (quick start). */
  DEMO_SEED: boolean.default(false),
});

export type Config = {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  publicUrl: string;
  databasePath: string;
  logLevel: z.infer<typeof ConfigSchema>['LOG_LEVEL'];
  trustProxy: boolean | number | string;
  bodyLimitBytes: number;
  shutdownGraceMs: number;
  demoSeed: boolean;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration; fix these environment variables:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses `env` (normally `process.env`); throws a `ConfigError` listing every problem at once. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty string in .env means "not set", so defaults apply.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ConfigSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
  }
  const c = parsed.data;
  return {
    env: c.NODE_ENV,
    host: c.HOST,
    port: c.PORT,
    publicUrl: (c.PUBLIC_URL ?? `http://${c.HOST}:${c.PORT}`).replace(/\/+$/, ''),
    databasePath: c.DATABASE_PATH,
    logLevel: c.LOG_LEVEL,
    trustProxy: parseTrustProxy(c.TRUST_PROXY),
    bodyLimitBytes: c.BODY_LIMIT_BYTES,
    shutdownGraceMs: c.SHUTDOWN_GRACE_SECONDS * 1000,
    demoSeed: c.DEMO_SEED,
  };
}

function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
