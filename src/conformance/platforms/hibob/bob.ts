import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ReceivedRequest, ReceiverAnswer } from '../../receiver.js';
import { DeletePackagesBody, PACKAGES_PATH, DELETE_PACKAGES_PATH, API_PATH, PackagesBody, TOKEN_PATH, patchProblem, type BobPackage } from './wire.js';

/**
 * Bob's side of a run, played on the checker's receiver: the token URL (RFC 6749's
 * `authorization_code` and `refresh_token` grants, form-encoded, the app's client id and secret in
 * the body or as Basic; one-time codes; refresh tokens rotated, a used one refused) and the four
 * calls of the Assessments API (register and delete packages, an assessment's details, its
 * update-status PATCH), each with a company's bearer token and scoped to that company, as Bob's are
 * (docs/hibob.md §3–§6). Every call is kept, with the company its token is of and what it was
 * answered, for the checks; they also make Bob refuse a token (a 401) or let one expire.
 */

/** One pair of tokens Bob issued a company. */
export interface IssuedTokens {
  company: string;
  access: string;
  refresh: string;
  /** When Bob issued them, on the checker's clock. */
  issuedAt: number;
  /** The `expires_in` of the answer, in seconds. */
  expiresIn: number;
  /** An install's code, or a refresh. */
  via: 'install' | 'refresh';
  /** The refresh token a refresh used. */
  from?: string;
  /** Bob takes the access token no more: its time is up (the check said so). */
  expired: boolean;
  /** Bob refused the access token (a 401 the check asked for) and takes it no more. */
  revoked: boolean;
  /** The refresh token was used: refused from then on (rotation). */
  rotated: boolean;
}

export type CallKind = 'token' | 'register' | 'delete' | 'details' | 'update' | 'other';

/** A token request as Bob read it: the grant, and how the client authenticated (secrets are not kept). */
export interface GrantSeen {
  /** Declared `application/x-www-form-urlencoded`. */
  form: boolean;
  type: string | undefined;
  code?: string;
  refreshToken?: string;
  redirectUri?: string;
  /** The client id and secret: in the form, as Basic, both (RFC 6749 §2.3: one method only), or neither. */
  clientAuth: 'body' | 'basic' | 'both' | 'none';
}

/** One call the partner made to Bob, and Bob's answer. */
export interface BobCall {
  /** In order of arrival, from 1. */
  n: number;
  at: number;
  method: string;
  path: string;
  kind: CallKind;
  /** The assessment request a details or update call is about. */
  orderId?: string;
  contentType?: string;
  body: string;
  /** The bearer token an API call carried, and the pair it is of (absent: none, or not one Bob issued). */
  bearer?: string;
  tokens?: IssuedTokens;
  /** A token request. */
  grant?: GrantSeen;
  /** The tokens a grant issued. */
  issued?: IssuedTokens;
  status: number;
  /** Why Bob refused it, in words. */
  refused?: string;
}

/** An order a recruiter of `company` made: its details, and whether the recruiter canceled it since. */
interface Order {
  company: string;
  details: Record<string, unknown>;
  canceled: boolean;
}

/** A catalog as a company's last successful registration left it. */
export interface Catalog {
  packages: BobPackage[];
  call: BobCall;
}

const DEFAULT_EXPIRES_IN_S = 3600;

const digest = (s: string) => createHash('sha256').update(s).digest();
const same = (a: string | undefined, b: string) => a !== undefined && timingSafeEqual(digest(a), digest(b));
const token = (kind: string) => `conformance-bob-${kind}-${randomBytes(18).toString('base64url')}`;

/** The client id and secret of `Authorization: Basic` (RFC 6749 §2.3.1: each form-urlencoded first). */
function basicClient(header: string | undefined): { id: string; secret: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  try {
    const plus = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: plus(decoded.slice(0, colon)), secret: plus(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export type Bob = ReturnType<typeof playBob>;

/** Bob for one run, knowing the app's client id and secret. */
export function playBob(app: { clientId: string; clientSecret: string }) {
  const calls: BobCall[] = [];
  const issued: IssuedTokens[] = [];
  const codes = new Map<string, { company: string; expiresIn: number; used: boolean }>();
  const orders = new Map<string, Order>();
  const catalogs = new Map<string, Catalog>();
  /** Orders whose next read Bob answers 401, revoking the token it carried. */
  const refuseRead = new Set<string>();
  const waits = new Set<{ notify: (call: BobCall) => void; end: () => void }>();
  let counter = 0;

  const issue = (company: string, expiresIn: number, via: IssuedTokens['via'], from?: string): IssuedTokens => {
    const pair: IssuedTokens = {
      company,
      access: token('access'),
      refresh: token('refresh'),
      issuedAt: Date.now(),
      expiresIn,
      via,
      ...(from !== undefined && { from }),
      expired: false,
      revoked: false,
      rotated: false,
    };
    issued.push(pair);
    return pair;
  };

  function tokenCall(call: BobCall, request: ReceivedRequest): ReceiverAnswer {
    const oauthError = (status: number, error: string, description: string): ReceiverAnswer => {
      call.status = status;
      call.refused = `${error}: ${description}`;
      return { status, headers: { 'cache-control': 'no-store' }, body: { error, error_description: description } };
    };
    if (request.method !== 'POST') return oauthError(405, 'invalid_request', 'the token URL takes POST');
    const form = /^application\/x-www-form-urlencoded\b/i.test(call.contentType ?? '');
    const params = new URLSearchParams(form ? request.body : '');
    const basic = basicClient(request.headers.authorization);
    const bodySecret = params.get('client_secret') ?? undefined;
    const clientAuth: GrantSeen['clientAuth'] = basic && bodySecret !== undefined ? 'both' : basic ? 'basic' : bodySecret !== undefined ? 'body' : 'none';
    const grant: GrantSeen = {
      form,
      type: params.get('grant_type') ?? undefined,
      ...(params.has('code') && { code: params.get('code')! }),
      ...(params.has('refresh_token') && { refreshToken: params.get('refresh_token')! }),
      ...(params.has('redirect_uri') && { redirectUri: params.get('redirect_uri')! }),
      clientAuth,
    };
    call.grant = grant;
    if (!form) return oauthError(400, 'invalid_request', 'a token request is form-encoded (RFC 6749 §4.1.3): application/x-www-form-urlencoded');
    if (clientAuth === 'both') return oauthError(400, 'invalid_request', 'the client authenticated twice, as Basic and in the body (RFC 6749 §2.3: one method only)');
    const id = basic?.id ?? params.get('client_id') ?? undefined;
    const secret = basic?.secret ?? bodySecret;
    if (!same(id, app.clientId) || !same(secret, app.clientSecret)) return oauthError(401, 'invalid_client', "not the app's client id and secret");

    let pair: IssuedTokens;
    if (grant.type === 'authorization_code') {
      const install = codes.get(grant.code ?? '');
      if (!install || install.used) return oauthError(400, 'invalid_grant', 'the code is not one Bob issued, or was used already');
      install.used = true;
      pair = issue(install.company, install.expiresIn, 'install');
    } else if (grant.type === 'refresh_token') {
      const from = issued.find((p) => p.refresh === grant.refreshToken);
      if (!from || from.rotated) return oauthError(400, 'invalid_grant', 'the refresh token is not one Bob issued, or was used already (rotated)');
      from.rotated = true;
      pair = issue(from.company, DEFAULT_EXPIRES_IN_S, 'refresh', from.refresh);
    } else {
      return oauthError(400, 'unsupported_grant_type', `grant_type ${JSON.stringify(grant.type ?? null)}: authorization_code or refresh_token`);
    }
    call.status = 200;
    call.issued = pair;
    return {
      status: 200,
      headers: { 'cache-control': 'no-store' },
      body: {
        access_token: pair.access,
        token_type: 'Bearer',
        expires_in: pair.expiresIn,
        refresh_token: pair.refresh,
        scope: 'hiring.integrations:write',
        // The installing company, which the callback's query names too (docs/hibob.md §2).
        companyId: pair.company,
      },
    };
  }

  function apiCall(call: BobCall, request: ReceivedRequest): ReceiverAnswer {
    const refuse = (status: number, why: string): ReceiverAnswer => {
      call.status = status;
      call.refused = why;
      return { status, body: { error: why } };
    };
    const path = call.path;
    const one = /^\/v1\/hiring\/assessments\/([^/]+)$/.exec(path);
    if (path === PACKAGES_PATH) call.kind = 'register';
    else if (path === DELETE_PACKAGES_PATH) call.kind = 'delete';
    else if (one && request.method === 'GET') call.kind = 'details';
    else if (one && request.method === 'PATCH') call.kind = 'update';
    if (one) {
      try {
        call.orderId = decodeURIComponent(one[1]!);
      } catch {
        call.orderId = one[1]!;
      }
    }

    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (bearer !== undefined) call.bearer = bearer;
    const pair = bearer === undefined ? undefined : issued.find((p) => p.access === bearer);
    if (pair) call.tokens = pair;
    if (bearer === undefined) return refuse(401, 'no bearer token');
    if (!pair) return refuse(401, 'not an access token Bob issued');
    if (pair.revoked) return refuse(401, 'an access token Bob refused');
    if (pair.expired) return refuse(401, 'an expired access token');
    if (call.kind === 'other') return refuse(404, `Bob has no ${request.method} ${path}`);

    const json = parseJson(request.body);
    if (call.kind === 'register' || call.kind === 'delete') {
      if (request.method !== 'POST') return refuse(405, `${path} takes POST`);
      if (call.kind === 'delete') {
        const parsed = DeletePackagesBody.safeParse(json);
        if (!parsed.success) return refuse(400, `packageIds: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
        const catalog = catalogs.get(pair.company);
        if (catalog) catalog.packages = catalog.packages.filter((p) => !parsed.data.packageIds.includes(p.id));
        call.status = 204;
        return { status: 204 };
      }
      const parsed = PackagesBody.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return refuse(400, `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
      }
      catalogs.set(pair.company, { packages: parsed.data.packages, call });
      call.status = 201;
      return { status: 201, body: {} };
    }

    const id = call.orderId!;
    if (call.kind === 'details' && refuseRead.delete(id)) {
      pair.revoked = true;
      return refuse(401, 'Bob refused the access token (the check asked it to)');
    }
    const order = orders.get(id);
    // Company-scoped: another company's order is answered as one that does not exist.
    if (!order || order.company !== pair.company) return refuse(404, `no assessment ${id} of company ${pair.company}`);
    if (call.kind === 'details') {
      call.status = 200;
      return { status: 200, body: order.details };
    }
    const problem = patchProblem(json);
    if (problem !== undefined) return refuse(400, problem);
    if (order.canceled) return refuse(409, 'the assessment was canceled in Bob: it takes no more updates');
    call.status = 204;
    return { status: 204 };
  }

  return {
    calls: calls as readonly BobCall[],
    issued: issued as readonly IssuedTokens[],

    /** How the receiver answers: each request kept as a call, then every wait told of it. */
    answer(request: ReceivedRequest): ReceiverAnswer {
      const path = request.path.split('?')[0]!;
      const call: BobCall = {
        n: ++counter,
        at: Date.now(),
        method: request.method,
        path,
        kind: path === TOKEN_PATH ? 'token' : 'other',
        ...(request.headers['content-type'] !== undefined && { contentType: String(request.headers['content-type']) }),
        body: request.body,
        status: 0,
      };
      calls.push(call);
      let answer: ReceiverAnswer;
      if (call.kind === 'token') answer = tokenCall(call, request);
      else if (path === API_PATH || path.startsWith(`${API_PATH}/`)) answer = apiCall(call, request);
      else {
        call.status = 404;
        call.refused = `the checker plays Bob's ${TOKEN_PATH} and ${API_PATH}/… only`;
        answer = { status: 404, body: { error: call.refused } };
      }
      for (const wait of waits) wait.notify(call);
      return answer;
    },

    /** A one-time install code for `company`; the tokens it is exchanged for expire in `expiresIn` seconds. */
    installCode(company: string, expiresIn = DEFAULT_EXPIRES_IN_S): string {
      const code = `conformance-code-${randomBytes(12).toString('base64url')}`;
      codes.set(code, { company, expiresIn, used: false });
      return code;
    },

    /** The tokens `code` was exchanged for, if it was. */
    exchangedFor: (code: string): BobCall | undefined => calls.find((c) => c.grant?.type === 'authorization_code' && c.grant.code === code && c.issued),

    /** An order a recruiter of `company` made, with the details Bob answers for it. */
    order(id: string, company: string, details: Record<string, unknown>): void {
      orders.set(id, { company, details, canceled: false });
    },

    /** The recruiter canceled the order: Bob takes no more updates of it. */
    cancel(id: string): void {
      const order = orders.get(id);
      if (order) order.canceled = true;
    },

    /** Bob answers the next read of `id` with 401, and takes the token it carried no more. */
    refuseNextRead(id: string): void {
      refuseRead.add(id);
    },

    /** The access token's time is up: Bob answers 401 to it from now on. */
    expire(pair: IssuedTokens): void {
      pair.expired = true;
    },

    /** A company's catalog as its last successful registration left it. */
    catalog: (company: string): Catalog | undefined => catalogs.get(company),

    /** The company whose tokens `bearer` is, if Bob issued it. */
    companyOf: (bearer: string | undefined): string | undefined => issued.find((p) => p.access === bearer)?.company,

    /** The first call (made already, or within `timeoutMs`) that `match` takes, or undefined once the time is up. */
    waitFor(match: (call: BobCall) => boolean, timeoutMs: number): Promise<BobCall | undefined> {
      const already = calls.find(match);
      if (already) return Promise.resolve(already);
      return new Promise((resolve) => {
        const finish = (call: BobCall | undefined) => {
          clearTimeout(timer);
          waits.delete(wait);
          resolve(call);
        };
        const timer = setTimeout(() => finish(undefined), timeoutMs);
        const wait = { notify: (call: BobCall) => match(call) && finish(call), end: () => finish(undefined) };
        waits.add(wait);
      });
    },

    /** Ends every wait under way (the run is over). */
    close(): void {
      for (const wait of waits) wait.end();
    },
  };
}
