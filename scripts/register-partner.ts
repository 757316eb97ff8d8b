/**
 * Registers (or updates) this partner on the platform — the declarative record in
 * scripts/partner-manifest.json, posted to the partners API (platform-contract.md §3.1):
 *
 *   PLATFORM_COMPANY_ID=1 PLATFORM_API_TOKEN=mock_api_acme npm run register
 *
 * PLATFORM_URL and PARTNER_CODENAME default as for the server (the sandbox, demo-assessments).
 * The partner's public URL, derived as the server derives it (PUBLIC_URL, else http://HOST:PORT),
 * replaces `${PUBLIC_URL}` in the manifest: where the platform reaches this server.
 * PARTNER_MANIFEST points at another manifest file. Running it again
 * updates the record (200); the secret stays the same. Exit codes: 0 registered, 1 refused or
 * unreachable, 78 configuration problem.
 */
import path from 'node:path';
import { request, type Dispatcher } from 'undici';
import { z } from 'zod';
import { ManifestError, readManifest } from '../src/contract/manifest.js';
import { Codename, IntegerId, Partner, type PartnerRequest } from '../src/contract/schemas.js';
import { loadEnvFile } from '../src/lib/env-file.js';
import { PARTNER_DEFAULTS, publicUrlOf } from '../src/partner/defaults.js';
import { exitUnlessRun, isEntryPoint, processOutput, readCommandLine, type CliOutput } from '../src/lib/cli.js';
import { packageRoot } from '../src/lib/package-root.js';

/**
 * scripts/partner-manifest.json of the project this script belongs to: the one file you edit,
 * read in place whether the script runs from scripts/ (tsx) or built, from dist/scripts/ (where
 * the build puts no copy that could go stale). The project is the nearest folder above the script
 * that holds a package.json.
 */
export function defaultManifestPath(scriptUrl: string | URL = import.meta.url): string {
  return path.join(packageRoot(scriptUrl), 'scripts', 'partner-manifest.json');
}

export const DEFAULT_MANIFEST = defaultManifestPath();
const TIMEOUT_MS = 15_000;

const USAGE = `Usage: npm run register

Registers this partner on the platform (or updates its record) from scripts/partner-manifest.json.
It takes no arguments; it reads the environment (and .env):

  PLATFORM_COMPANY_ID   required: the id of your own company on the platform (1 in the sandbox)
  PLATFORM_API_TOKEN    required: a personal API token from your company settings (mock_api_acme in the sandbox)
  PLATFORM_URL          the platform's integrations URL (default ${PARTNER_DEFAULTS.PLATFORM_URL})
  PARTNER_CODENAME      your codename on the platform (default ${PARTNER_DEFAULTS.PARTNER_CODENAME})
  PUBLIC_URL            where the platform reaches your server (default http://HOST:PORT, as the server)
  PARTNER_MANIFEST      another manifest file, e.g. scripts/partner-manifest.background-check.json
                        (then run the server with the same PARTNER_KIND)`;

/** A problem the user fixes in their environment or manifest (exit 78), every one named. */
export class RegisterConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Cannot register the partner; fix these first:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'RegisterConfigError';
  }
}

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' });

const HINTS: Record<string, string> = {
  PLATFORM_URL: "the platform's integrations URL, e.g. http://127.0.0.1:4000 for the sandbox (npm run mock)",
  PARTNER_CODENAME: 'your unique, URL-friendly name on the platform, e.g. demo-assessments',
  PLATFORM_COMPANY_ID: 'the id of your own company on the platform (1 in the sandbox)',
  PLATFORM_API_TOKEN: 'a personal API token from your company settings (mock_api_acme in the sandbox)',
  PUBLIC_URL: "where the platform reaches your partner server, e.g. https://partner.example.com (default http://HOST:PORT)",
  HOST: `the address your partner server listens on (default ${PARTNER_DEFAULTS.HOST})`,
  PORT: `the port your partner server listens on (default ${PARTNER_DEFAULTS.PORT})`,
  PARTNER_MANIFEST: 'the partner record to register (default scripts/partner-manifest.json)',
};

export const RegisterEnv = z.object({
  PLATFORM_URL: httpUrl.default(PARTNER_DEFAULTS.PLATFORM_URL),
  PARTNER_CODENAME: Codename.default(PARTNER_DEFAULTS.PARTNER_CODENAME),
  PLATFORM_COMPANY_ID: IntegerId,
  PLATFORM_API_TOKEN: z.string().trim().min(1),
  // Read as the server reads them: the callbacks are registered where the server is reached.
  PUBLIC_URL: httpUrl.optional(),
  HOST: z.string().min(1).optional(),
  PORT: z.coerce.number().int().min(0).max(65535).optional(),
  PARTNER_MANIFEST: z.string().min(1).default(DEFAULT_MANIFEST),
});

export interface RegisterOptions {
  platformUrl: string;
  codename: string;
  companyId: number;
  apiToken: string;
  partner: PartnerRequest;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

export type RegisterResult =
  | { ok: true; created: boolean; partner: Partner }
  | {
      ok: false;
      reason: 'unauthorized' | 'conflict' | 'invalid' | 'unreachable' | 'unexpected';
      status?: number;
      message: string;
      fieldErrors?: Record<string, string[]>;
    };

/** Reads the environment into registration options (manifest included); throws a RegisterConfigError. */
export function loadRegisterOptions(env: Record<string, string | undefined>): RegisterOptions {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = RegisterEnv.safeParse(present, {
    error: (issue) => (issue.input === undefined ? 'not set' : undefined),
  });
  if (!parsed.success) {
    throw new RegisterConfigError(
      parsed.error.issues.map((i) => {
        const name = String(i.path[0]);
        return `${name}: ${i.message}${HINTS[name] ? ` — ${HINTS[name]}` : ''}`;
      }),
    );
  }
  const e = parsed.data;
  return {
    platformUrl: e.PLATFORM_URL,
    codename: e.PARTNER_CODENAME,
    companyId: e.PLATFORM_COMPANY_ID,
    apiToken: e.PLATFORM_API_TOKEN,
    partner: loadManifest(e.PARTNER_MANIFEST, publicUrlOf(e)),
  };
}

/** The manifest's partner record (`${PUBLIC_URL}` replaced, validated); throws a RegisterConfigError. */
export function loadManifest(file: string, publicUrl: string): PartnerRequest {
  try {
    return readManifest(file, publicUrl).partner;
  } catch (err) {
    if (err instanceof ManifestError) throw new RegisterConfigError(err.problems);
    throw err;
  }
}

/** POSTs the partner record. Never throws for anything the platform or the network does. */
export async function registerPartner(options: RegisterOptions): Promise<RegisterResult> {
  const url = `${options.platformUrl.replace(/\/+$/, '')}/api/p/${encodeURIComponent(options.codename)}/c/${options.companyId}/partner`;
  let status: number;
  let body: unknown;
  try {
    const res = await request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${options.apiToken}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify(options.partner),
      signal: AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS),
      ...(options.dispatcher && { dispatcher: options.dispatcher }),
    });
    status = res.statusCode;
    const text = await res.body.text();
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  } catch (err) {
    const e = err as { code?: string; name?: string; message?: string };
    const why =
      e.name === 'TimeoutError'
        ? `no answer within ${(options.timeoutMs ?? TIMEOUT_MS) / 1000} s`
        : (e.code ?? e.message ?? String(err));
    return { ok: false, reason: 'unreachable', message: `Could not reach the platform at ${options.platformUrl} (${why}).` };
  }

  const error = typeof (body as { error?: unknown })?.error === 'string' ? (body as { error: string }).error : undefined;
  if (status === 200 || status === 201) {
    const partner = z.object({ partner: Partner }).safeParse(body);
    if (partner.success) return { ok: true, created: status === 201, partner: partner.data.partner };
    return { ok: false, reason: 'unexpected', status, message: `The platform answered ${status} without a partner record.` };
  }
  if (status === 401) return { ok: false, reason: 'unauthorized', status, message: error ?? 'Unauthorized' };
  if (status === 409) return { ok: false, reason: 'conflict', status, message: error ?? 'Conflict' };
  if (status === 422) {
    const fields = z.record(z.string(), z.array(z.string())).safeParse((body as { errors?: unknown })?.errors);
    return {
      ok: false,
      reason: 'invalid',
      status,
      message: error ?? 'The partner record was refused',
      ...(fields.success && { fieldErrors: fields.data }),
    };
  }
  return { ok: false, reason: 'unexpected', status, message: error ?? `HTTP ${status}` };
}

/** "xdAn…" and the length: enough to recognise the secret, not to use it. */
export function maskSecret(secret: string): string {
  return `${secret.slice(0, 4)}… (${secret.length} characters)`;
}

/** What the CLI prints for a result. */
export function describeResult(result: RegisterResult, options: Pick<RegisterOptions, 'platformUrl' | 'codename' | 'companyId'>): string {
  if (result.ok) {
    const p = result.partner;
    const record = JSON.stringify({ ...p, secret: maskSecret(p.secret) }, null, 2);
    return [
      result.created
        ? `Registered partner "${p.codename}" on ${options.platformUrl} (company ${p.company_id}).`
        : `Updated partner "${p.codename}" on ${options.platformUrl} (company ${p.company_id}); its secret is unchanged.`,
      '',
      record,
      '',
      'Put the partner secret in your .env; the partner server sends it with every report update:',
      '',
      `  PARTNER_SECRET=${p.secret}`,
      '',
    ].join('\n');
  }
  switch (result.reason) {
    case 'unauthorized':
      return (
        `The platform refused the API token (401: ${result.message}).\n` +
        `Check PLATFORM_API_TOKEN, and that it is a token of company ${options.companyId} (PLATFORM_COMPANY_ID).`
      );
    case 'conflict':
      return (
        `The codename "${options.codename}" is taken by another company (409: ${result.message}).\n` +
        'Choose another PARTNER_CODENAME.'
      );
    case 'invalid': {
      const fields = Object.entries(result.fieldErrors ?? {}).map(([field, messages]) => `  - ${field}: ${messages.join('; ')}`);
      return [
        `The platform refused the partner record (422): ${result.message}`,
        ...fields,
        'Fix scripts/partner-manifest.json (or PARTNER_CODENAME) and run again.',
      ].join('\n');
    }
    case 'unreachable':
      return `${result.message}\nIs PLATFORM_URL right, and is the platform running? (\`npm run mock\` starts the sandbox.)`;
    case 'unexpected':
      return `Unexpected answer from the platform${result.status ? ` (HTTP ${result.status})` : ''}: ${result.message}`;
  }
}

/**
 * `npm run register` once its (absent) arguments are checked: registers as `env` says, prints the
 * outcome to `io`; returns the exit code (0 registered, 1 refused or unreachable, 78 configuration).
 */
export async function registerCli(env: Record<string, string | undefined>, io: CliOutput): Promise<number> {
  let options: RegisterOptions;
  try {
    options = loadRegisterOptions(env);
  } catch (err) {
    if (err instanceof RegisterConfigError) {
      io.stderr(`${err.message}\n`);
      return 78; // EX_CONFIG
    }
    throw err;
  }
  const result = await registerPartner(options);
  const text = describeResult(result, options);
  if (result.ok) {
    io.stdout(`${text}\n`);
    return 0;
  }
  io.stderr(`${text}\n`);
  return 1;
}

/** `npm run register`'s command line, read before anything is sent: it takes no arguments (see readCommandLine). */
export const readRegisterCommandLine = (args: string[], out?: CliOutput) => readCommandLine(USAGE, args, {}, false, out);

if (isEntryPoint(import.meta.url)) {
  exitUnlessRun(readRegisterCommandLine(process.argv.slice(2)));
  loadEnvFile();
  process.exitCode = await registerCli(process.env, processOutput);
}
