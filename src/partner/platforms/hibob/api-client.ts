import type { HibobSettings } from './settings.js';
import { BOB_TIMEOUT_MS, describe, type BobTokenKeeper } from './tokens.js';
import { readDetails, UnusableDetails, type AssessmentDetails, type BobPackage } from './wire.js';

const USER_AGENT = 'partner-integration-kit/0.1 (HiBob)';

/** A call to Bob that failed in a way worth retrying later: Bob down, slow, 5xx, or refusing the catalog for now. */
export class BobCallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BobCallError';
  }
}

export type BobApi = ReturnType<typeof bobApi>;

/**
 * The two calls the kit's workers make to Bob's Assessments API (docs/hibob.md §4, §5), each with
 * the installing company's bearer token (`tokens.accessToken`): refreshed first when due, and once
 * more when Bob answers 401 (the token is marked refused, refreshed, and the call made again).
 */
export function bobApi(deps: { settings: HibobSettings; tokens: BobTokenKeeper }) {
  const { settings, tokens } = deps;

  async function call(accountId: number, companyId: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; text: string }> {
    const send = async (token: string) => {
      try {
        const res = await fetch(`${settings.apiUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            accept: 'application/json',
            'user-agent': USER_AGENT,
            ...(body !== undefined && { 'content-type': 'application/json' }),
          },
          ...(body !== undefined && { body: JSON.stringify(body) }),
          // The bearer token goes to HIBOB_API_URL and nowhere else.
          redirect: 'error',
          signal: AbortSignal.timeout(BOB_TIMEOUT_MS),
        });
        return { status: res.status, text: await res.text() };
      } catch (err) {
        throw new BobCallError(`${method} ${path}: Bob could not be reached (${describe(err)})`);
      }
    };
    let token = await tokens.accessToken(accountId, { companyId });
    let answer = await send(token);
    if (answer.status === 401) {
      await tokens.markRefused(accountId, token);
      token = await tokens.accessToken(accountId, { companyId });
      answer = await send(token);
    }
    return answer;
  }

  return {
    /**
     * The assessment's details (`GET /hiring/assessments/{id}`), read defensively (wire.ts). A 404 —
     * not this company's assessment, or gone — and an answer without the candidate's e-mail or the
     * package are `UnusableDetails`: retrying will not change them.
     */
    async details(accountId: number, companyId: string, assessmentRequestId: string): Promise<AssessmentDetails> {
      const path = `/hiring/assessments/${encodeURIComponent(assessmentRequestId)}`;
      const { status, text } = await call(accountId, companyId, 'GET', path);
      if (status === 404) throw new UnusableDetails(`Bob answered 404 to GET ${path}: the assessment is not company ${companyId}'s, or no longer exists`);
      if (status < 200 || status >= 300) throw new BobCallError(`GET ${path}: HTTP ${status}${snippet(text)}`);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new BobCallError(`GET ${path}: HTTP ${status} with a body that is not JSON`);
      }
      return readDetails(json);
    },

    /** Registers (replaces) the company's catalog (`POST /hiring/assessments/packages`). */
    async registerPackages(accountId: number, companyId: string, packages: readonly BobPackage[]): Promise<void> {
      const path = '/hiring/assessments/packages';
      const { status, text } = await call(accountId, companyId, 'POST', path, { packages });
      if (status < 200 || status >= 300) throw new BobCallError(`POST ${path}: HTTP ${status}${snippet(text)}`);
    },
  };
}

/** `: <what Bob said>`, short and on one line, for the log and the stored error. */
function snippet(text: string): string {
  // eslint-disable-next-line no-control-regex
  const line = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 200);
  return line ? `: ${line}` : '';
}
