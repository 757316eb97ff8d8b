import { Ajv2020 } from 'ajv/dist/2020.js';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_SIGNATURE_HEADER } from '../../src/contract/decisions.js';
import type { OpenApiDocument } from '../../src/contract/openapi/document.js';
import { Partner } from '../../src/contract/schemas.js';
import { signWebhookBody } from '../../src/contract/signature.js';
import { VENDOR_SIGNATURE_HEADER, signVendorResult } from '../../src/contract/vendor-signature.js';
import { platformApiDocument } from '../../src/mock-platform/openapi/document.js';
import { SEED_API_TOKENS } from '../../src/mock-platform/seed.js';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { EXAMPLE_VENDOR_RESULTS_SECRET, EXAMPLE_WEBHOOK_SECRET, partnerApiDocument } from '../../src/partner/openapi.js';
import { reportId } from '../support/partner.js';
import { startKitPartner, type KitPartner } from '../support/kit-partner.js';
import { operationsOf } from './support.js';
import { HARRY_POTTER } from '../support/greenhouse-candidate.js';
import { randomUUID } from 'node:crypto';
import { systemClock } from '../../src/lib/clock.js';
import { accountStore } from '../../src/partner/accounts/store.js';
import { DEV_CANDIDATE_LINK_SECRET } from '../../src/partner/config.js';
import { connectionStore } from '../../src/partner/connections/store.js';
import { assessmentTypeId } from '../../src/partner/platforms/ashby/ids.js';

/**
 * Each document says what its server accepts, at the edges where they used to part: for every
 * string a request carries, "" and "  "; for every integer id, 2^53 − 1 and 2^53, as a number and
 * in digits. Each is put into a request the server accepts, one field at a time, judged by the
 * documented JSON Schema (Ajv, draft 2020-12) and sent:
 *
 * - a value the document refuses is refused (4xx);
 * - a value it allows is not refused for its form: it is accepted (2xx), or answered exactly as a
 *   stand-in of the right form is — an unknown id, or, where blank counts as not sent, the field
 *   left out — since a document cannot know which ids exist or what an offer requires.
 *
 * The fields are read from the documents, not listed here: a field added to a schema is held to
 * the same rule. Header parameters (credentials, signatures) are left to their own tests.
 */

const MAX = Number.MAX_SAFE_INTEGER;
const OVER = 2 ** 53;
const UNKNOWN_REPORT = '00000000-0000-4000-8000-000000000000';
/** A stand-in for "the field left out". */
const ABSENT = Symbol('absent');

type Json = Record<string, unknown>;
type Where = 'path' | 'query' | 'body';

/** A request as a fixture gives it: parameter values by name, and a JSON body. */
interface Req {
  params: Record<string, string>;
  body?: unknown;
}
interface Sent extends Req {
  url: string;
  bodyText?: string;
}
interface Answer {
  status: number;
  text: string;
}

interface Fixture {
  /** A request the server accepts (2xx); called for every request sent, so each can be fresh. */
  base(): Promise<Req> | Req;
  /** Headers of a request as it is sent: credentials, a signature over the body. */
  headers?(sent: Sent): Record<string, string>;
  /**
   * Per field (`path.company_id`, `body.candidate.cv`), a value of the right form the server
   * refuses for another reason than its form, or ABSENT: a value the document allows may be
   * answered as this one is.
   */
  standIns?: Record<string, unknown>;
  /** Why the server does not read the body (it is documented for other servers). */
  bodyUnread?: string;
}

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
// Formats assert here, as API tools treat them: "" is not a URL. `email` and `date-time` carry
// patterns of their own, which assert in any case.
ajv.addFormat('uri', (s: string) => URL.canParse(s));
ajv.addFormat('email', () => true);
ajv.addFormat('date-time', () => true);

const compiled = new Map<Json, (value: unknown) => boolean>();
function allows(schema: Json, value: unknown): boolean {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile<unknown>(schema) as (value: unknown) => boolean));
  return validate(value);
}

const branches = (schema: Json): Json[] => (schema.anyOf as Json[] | undefined) ?? [schema];
const typesOf = (schema: Json): string[] => {
  const type = schema.type;
  return Array.isArray(type) ? (type as string[]) : typeof type === 'string' ? [type] : [];
};
/** A string schema for the digits of an id: "1" and "42", never "a" or "01". */
const isDigits = (schema: Json) => {
  if (typeof schema.pattern !== 'string') return false;
  const re = new RegExp(schema.pattern, 'u');
  return re.test('1') && re.test('42') && !re.test('a') && !re.test('01');
};

/** The edge values of a field, by what its schema takes. */
function edgesOf(schema: Json, where: Where): unknown[] {
  const all = branches(schema);
  const types = new Set(all.flatMap(typesOf));
  const edges: unknown[] = [];
  if (types.has('string')) edges.push(...(where === 'path' ? ['  '] : ['', '  ']));
  if (all.some((b) => typesOf(b).includes('string') && isDigits(b))) edges.push(String(MAX), String(OVER));
  if (types.has('integer')) edges.push(...(where === 'body' ? [MAX, OVER] : [String(MAX), String(OVER)]));
  return [...new Set(edges)];
}

/** Every field of a body schema that takes a string or an integer, with its path; arrays by their first item. */
function fieldsOf(schema: Json, base: unknown, path: (string | number)[] = []): { path: (string | number)[]; schema: Json }[] {
  const found = new Map<string, { path: (string | number)[]; schema: Json }>();
  const add = (f: { path: (string | number)[]; schema: Json }) => found.set(f.path.join('.'), f);
  if (path.length > 0 && edgesOf(schema, 'body').length > 0) add({ path, schema });
  for (const branch of branches(schema)) {
    const properties = (branch.properties as Record<string, Json> | undefined) ?? {};
    const extra = branch.additionalProperties;
    const own = base !== null && typeof base === 'object' && !Array.isArray(base) ? (base as Json) : {};
    for (const key of new Set([...Object.keys(properties), ...(extra && typeof extra === 'object' ? Object.keys(own) : [])])) {
      const sub = properties[key] ?? (extra as Json);
      for (const f of fieldsOf(sub, own[key], [...path, key])) add(f);
    }
    if (branch.items && typeof branch.items === 'object') {
      for (const f of fieldsOf(branch.items as Json, Array.isArray(base) ? base[0] : undefined, [...path, 0])) add(f);
    }
  }
  return [...found.values()];
}

/** `value` with the field at `path` set (or left out, for ABSENT); missing objects and arrays are made. */
function withField(value: unknown, path: (string | number)[], field: unknown): unknown {
  const copy = structuredClone(value ?? (typeof path[0] === 'number' ? [] : {})) as Record<string | number, unknown>;
  let at = copy;
  path.forEach((key, i) => {
    if (i === path.length - 1) {
      if (field === ABSENT) delete at[key];
      else at[key] = field;
      return;
    }
    at[key] ??= typeof path[i + 1] === 'number' ? [] : {};
    at = at[key] as Record<string | number, unknown>;
  });
  return copy;
}

interface OperationObject {
  operationId: string;
  parameters?: { name: string; in: string; schema: Json }[];
  requestBody?: { content: Record<string, { schema: Json }> };
}

async function send(baseUrl: string, path: string, method: string, op: OperationObject, req: Req, fixture: Fixture): Promise<Answer> {
  let url = path;
  const query = new URLSearchParams();
  for (const p of op.parameters ?? []) {
    const value = req.params[p.name];
    if (value === undefined) continue;
    if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(value));
    else if (p.in === 'query') query.set(p.name, value);
  }
  if (query.size > 0) url += `?${query}`;
  const bodyText = req.body === undefined ? undefined : JSON.stringify(req.body);
  const sent: Sent = { ...req, url, ...(bodyText !== undefined && { bodyText }) };
  const res = await request(baseUrl + url, {
    method: method.toUpperCase() as 'GET',
    headers: { ...(bodyText !== undefined && { 'content-type': 'application/json' }), ...fixture.headers?.(sent) },
    body: bodyText,
  });
  return { status: res.statusCode, text: await res.body.text() };
}

/** An answer with a value's own text taken out, so that the answers to two values compare. */
const normalised = (answer: Answer, value: unknown) => {
  const shown = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  return `${answer.status} ${shown.trim() === '' ? answer.text : answer.text.replaceAll(shown, '<value>')}`;
};

/**
 * Sends each edge of each field of each operation that has a fixture, and returns what disagrees
 * with the document; an operation with parameters or a body but no fixture is itself a finding.
 */
async function disagreements(doc: OpenApiDocument, baseUrl: string, fixtures: Record<string, Fixture>): Promise<{ found: string[]; checked: string[] }> {
  const found: string[] = [];
  const checked: string[] = [];
  const ops = operationsOf(doc) as unknown as { path: string; method: string; op: OperationObject }[];
  for (const { op } of ops) {
    const takes = (op.parameters ?? []).some((p) => p.in !== 'header') || op.requestBody !== undefined;
    if (takes && !fixtures[op.operationId]) found.push(`${op.operationId}: no fixture; every operation that takes input is checked`);
  }
  for (const [operationId, fixture] of Object.entries(fixtures)) {
    const entry = ops.find((o) => o.op.operationId === operationId);
    if (!entry) {
      found.push(`${operationId}: not in the document`);
      continue;
    }
    const { path, method, op } = entry;
    const sendReq = (req: Req) => send(baseUrl, path, method, op, req, fixture);

    const sample = await fixture.base();
    const accepted = await sendReq(sample);
    if (accepted.status >= 300) {
      found.push(`${operationId}: the fixture's request is answered ${accepted.status} ${accepted.text.slice(0, 200)}`);
      continue;
    }

    const cases: { field: string; schema: Json; apply: (req: Req, value: unknown) => Req; edges: unknown[] }[] = [];
    for (const p of op.parameters ?? []) {
      if (p.in !== 'path' && p.in !== 'query') continue;
      const where = p.in as Where;
      cases.push({
        field: `${where}.${p.name}`,
        schema: p.schema,
        edges: edgesOf(p.schema, where),
        apply: (req, value) => {
          const params = { ...req.params };
          if (value === ABSENT) delete params[p.name];
          else params[p.name] = String(value);
          return { ...req, params };
        },
      });
    }
    const bodySchema = op.requestBody?.content['application/json']?.schema;
    if (bodySchema && !fixture.bodyUnread) {
      for (const f of fieldsOf(bodySchema, sample.body)) {
        cases.push({
          field: ['body', ...f.path].join('.'),
          schema: bodySchema,
          edges: edgesOf(f.schema, 'body'),
          apply: (req, value) => ({ ...req, body: withField(req.body, f.path, value) }),
        });
      }
    }

    for (const c of cases) {
      for (const edge of c.edges) {
        const req = c.apply(await fixture.base(), edge);
        const documented = c.field.startsWith('body.') ? allows(c.schema, req.body) : allows(c.schema, edge);
        const answer = await sendReq(req);
        const shown = `${operationId} ${c.field} = ${JSON.stringify(edge)}`;
        checked.push(`${shown}: ${documented ? 'allowed' : 'refused'}, answered ${answer.status}`);
        if (!documented) {
          if (answer.status < 300) found.push(`${shown}: the document refuses it, the server accepted it (${answer.status})`);
          continue;
        }
        if (answer.status < 300) continue;
        const standIn = fixture.standIns?.[c.field];
        if (standIn !== undefined) {
          const other = await sendReq(c.apply(await fixture.base(), standIn));
          if (normalised(other, standIn) === normalised(answer, edge)) continue;
        }
        found.push(`${shown}: the document allows it, the server refused it: ${answer.status} ${answer.text.slice(0, 300)}`);
      }
    }
  }
  return { found, checked };
}

// --- The servers and what the fixtures' requests presuppose ----------------------------------------

let partner: KitPartner;
let mock: RunningMockPlatform;
let customerToken: string;
let testId: string;
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  [partner, mock] = await Promise.all([
    startKitPartner({ WEBHOOK_SECRETS: `3:${EXAMPLE_WEBHOOK_SECRET}`, VENDOR_RESULTS_SECRET: EXAMPLE_VENDOR_RESULTS_SECRET }),
    startMockPlatform({ port: 0, logLevel: 'silent' }),
  ]);
  const customer = await partner.customer('Acme Corp', ['JavaScript', 'SQL']);
  customerToken = customer.token;
  testId = String(customer.tests[0]!.id);
  const bound = await request(`${partner.url}/callbacks/validate_token`, {
    method: 'POST',
    headers: { ...auth(customerToken), 'content-type': 'application/json' },
    body: JSON.stringify({ company_id: 3 }),
  });
  expect(bound.statusCode).toBe(200);
});
afterAll(async () => {
  await Promise.all([partner?.close(), mock?.close()]);
});

/** A report the partner has received (send_candidate), in state `sent`. */
async function sentReport(): Promise<string> {
  const id = reportId();
  const res = await request(`${partner.url}/callbacks/send_candidate`, {
    method: 'POST',
    headers: { ...auth(customerToken), 'content-type': 'application/json' },
    body: JSON.stringify(adaFor(id)),
  });
  expect(res.statusCode, await res.body.text()).toBe(201);
  return id;
}
const adaFor = (id: string) => ({
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  candidate_id: 17,
  company_id: 3,
  report_id: id,
  test_id: testId,
  test_name: 'JavaScript',
});

describe("the partner's document and the kit's partner", () => {
  it('agree at the edges of every field of every request', async () => {
    const canceled = await sentReport();
    const webhookEvent = () => ({
      id: Math.floor(Math.random() * 1e9) + 1,
      attempt_count: 1,
      created_at: '2026-11-01T09:00:00Z',
      event_type: 'offer_published',
      event_subtype: 'manual',
      payload: { company: { id: 3, name: 'Acme Corp' }, offer: { id: 7, title: 'Backend Engineer' } },
    });
    const customer = () => auth(customerToken);

    const fixtures: Record<string, Fixture> = {
      validateToken: { base: () => ({ params: {}, body: { company_id: 3 } }), headers: customer, standIns: { 'body.company_id': 999 } },
      checkToken: { base: () => ({ params: { company_id: '3' } }), headers: customer, standIns: { 'query.company_id': '999' } },
      sendCandidate: { base: () => ({ params: {}, body: adaFor(reportId()) }), headers: customer, standIns: { 'body.company_id': 999 } },
      cancelReport: {
        base: () => ({ params: { report_id: canceled }, body: { report_id: canceled, company_id: 3 } }),
        headers: customer,
        standIns: { 'path.report_id': UNKNOWN_REPORT },
        bodyUnread: 'the URL names the report; the body repeats it for partners whose cancel URL does not',
      },
      receiveWebhook: {
        base: () => ({ params: { company_id: '3' }, body: webhookEvent() }),
        headers: (sent) => ({ [WEBHOOK_SIGNATURE_HEADER]: signWebhookBody(EXAMPLE_WEBHOOK_SECRET, sent.bodyText ?? '') }),
        standIns: { 'path.company_id': '999' },
      },
      pushVendorResult: {
        base: async () => ({
          params: { report_id: await sentReport() },
          body: {
            status: 'completed',
            score: '76%',
            subtitle: '4 of 5 questions right',
            properties: [{ label: 'Time taken', value: '12 minutes' }],
            completed_at: '2026-11-01T09:30:00Z',
            details: [{ label: 'Question 1', value: 'right', ok: true }],
          },
        }),
        headers: (sent) => ({
          [VENDOR_SIGNATURE_HEADER]: signVendorResult(
            EXAMPLE_VENDOR_RESULTS_SECRET,
            sent.params.report_id!,
            sent.bodyText ?? '',
            Math.floor(Date.now() / 1000),
          ),
        }),
        standIns: { 'path.report_id': UNKNOWN_REPORT },
      },
    };
    // Greenhouse calls with the same customer's token as its key, the Basic user name.
    const greenhouseKey = () => ({ authorization: `Basic ${Buffer.from(`${customerToken}:`).toString('base64')}` });
    const harry = () => ({
      partner_test_id: testId,
      candidate: { ...HARRY_POTTER },
      sent_by: 'test_sender@example.org',
      url: 'https://app.greenhouse.io/integrations/testing_partners/take_home_tests/12345',
    });
    const interview = async () => {
      const res = await request(`${partner.url}/greenhouse/send_test`, {
        method: 'POST',
        headers: { ...greenhouseKey(), 'content-type': 'application/json' },
        body: JSON.stringify(harry()),
      });
      expect(res.statusCode).toBe(200);
      return ((await res.body.json()) as { partner_interview_id: string }).partner_interview_id;
    };
    const interviewId = await interview();
    Object.assign(fixtures, {
      greenhouseSendTest: {
        base: () => ({ params: {}, body: harry() }),
        headers: greenhouseKey,
        // An unknown test, a host the PATCH may not go to: 422 as a malformed one.
        standIns: { 'body.partner_test_id': '999999', 'body.url': 'https://evil.example/patch' },
      },
      greenhouseTestStatus: {
        base: () => ({ params: { partner_interview_id: interviewId } }),
        headers: greenhouseKey,
        standIns: { 'query.partner_interview_id': UNKNOWN_REPORT },
      },
      greenhouseResponseError: {
        base: () => ({
          params: {},
          body: {
            api_call: 'test_status',
            errors: ['partner_profile url is missing'],
            partner_test_id: testId,
            partner_test_name: 'JavaScript',
            partner_interview_id: interviewId,
            candidate_email: 'hpotter@hogwarts.edu',
          },
        }),
        headers: greenhouseKey,
      },
    } satisfies Record<string, Fixture>);
    // Ashby calls with the same key; a start needs the account's Ashby API key, and each is of a new application.
    const account = (await accountStore(partner.sql, systemClock).authenticate(customerToken))!;
    await connectionStore(partner.sql, systemClock, DEV_CANDIDATE_LINK_SECRET).setCredential(account.id, 'ashby', 'agreement-ashby-api-key');
    const ashbyKey = greenhouseKey;
    const ashbyStart = () => ({
      assessment_type_id: assessmentTypeId(testId),
      candidate: { ashby_id: randomUUID(), first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', ashby_profile_url: 'https://app.ashbyhq.com/candidates/1' },
      application: { ashby_id: randomUUID(), status: 'Active' },
      job: { ashby_id: randomUUID(), name: 'Backend Engineer', ashby_job_url: 'https://app.ashbyhq.com/jobs/1', req_id: 'ENG-42' },
    });
    const started = await request(`${partner.url}/ashby/assessment.start`, {
      method: 'POST',
      headers: { ...ashbyKey(), 'content-type': 'application/json' },
      body: JSON.stringify(ashbyStart()),
    });
    expect(started.statusCode).toBe(200);
    const assessment = ((await started.body.json()) as { results: { assessment_id: string } }).results.assessment_id;
    Object.assign(fixtures, {
      ashbyListAssessments: { base: () => ({ params: {}, body: {} }), headers: ashbyKey },
      ashbyStartAssessment: {
        base: () => ({ params: {}, body: ashbyStart() }),
        headers: ashbyKey,
        // A type the account does not list: 422 as a malformed one.
        standIns: { 'body.assessment_type_id': UNKNOWN_REPORT },
      },
      // Canceled by the first request; a cancel repeated answers the same.
      ashbyCancelAssessment: { base: () => ({ params: {}, body: { assessment_id: assessment } }), headers: ashbyKey },
    } satisfies Record<string, Fixture>);
    const { found, checked } = await disagreements(partnerApiDocument(), partner.url, fixtures);
    if (process.env.SHOW_EDGES) console.log(checked.join('\n'));
    expect(found).toEqual([]);
    expect(checked.length).toBeGreaterThan(60);
  });
});

describe("the mock's document and the mock", () => {
  it('agree at the edges of every field of every request', async () => {
    const acme = SEED_API_TOKENS.find((t) => t.companyId === 1)!;
    const codename = 'agreement-partner';
    const callbacks = `${partner.url}/callbacks`;
    const urls = {
      help_article: `${partner.url}/`,
      validate_token: `${callbacks}/validate_token`,
      tests: `${callbacks}/tests`,
      send_candidate: `${callbacks}/send_candidate`,
    };
    const manifest = {
      kind: 'assessment',
      name: 'Agreement Partner',
      description: 'Skills tests.',
      urls,
      inputs: [
        { kind: 'email', name: 'Work e-mail', required: true },
        { kind: 'first_name', required: true },
      ],
    };
    const register = async () => {
      const res = await request(`${mock.url}/api/p/${codename}/c/${acme.companyId}/partner`, {
        method: 'POST',
        headers: { ...auth(acme.token), 'content-type': 'application/json' },
        body: JSON.stringify(manifest),
      });
      expect(res.statusCode).toBeLessThan(300);
      return Partner.parse(((await res.body.json()) as { partner: unknown }).partner).secret;
    };

    // The partner registered, integrated by company 1 with a token of the kit's partner, and a
    // report sent to candidate 17: what a report update presupposes.
    const secret = await register();
    const integrating = await partner.customer('Acme Corp', ['JavaScript']);
    const marketplace = (path: string, body: unknown) =>
      request(`${mock.url}/api/marketplace/c/${acme.companyId}/partners/${codename}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await marketplace('/integration', { token: integrating.token })).statusCode).toBe(201);
    const report = reportId();
    const sent = await marketplace('/send', { candidate_id: 17, test_id: integrating.tests[0]!.id, test_name: 'JavaScript', report_id: report });
    expect(sent.statusCode, await sent.body.text()).toBe(201);

    const apiToken = () => auth(acme.token);
    const record = { codename, company_id: String(acme.companyId) };
    const recordStandIns = { 'path.codename': 'no-such-partner', 'path.company_id': '999' };
    const file = (name: string) => ({ name, content_type: 'text/plain', data: Buffer.from(`${name}: Ada Lovelace`).toString('base64') });

    // In the order that keeps each one's presuppositions: the record is deleted last.
    const fixtures: Record<string, Fixture> = {
      registerPartner: { base: () => ({ params: record, body: manifest }), headers: apiToken, standIns: recordStandIns },
      readPartner: { base: () => ({ params: record }), headers: apiToken, standIns: recordStandIns },
      updatePartner: {
        base: () => ({ params: record, body: { name: 'Agreement Partner', description: 'Skills tests.', urls, inputs: manifest.inputs } }),
        headers: apiToken,
        standIns: recordStandIns,
      },
      updateReport: {
        base: () => ({
          params: { codename, report_id: report },
          body: {
            status: 'completed',
            score: '80%',
            completed_at: '2026-11-02T10:30:00Z',
            subtitle: '4 of 5 questions right',
            properties: [{ label: 'Time taken', value: '12 minutes' }],
            urls: { show: 'https://partner.example.com/results/1' },
          },
        }),
        headers: () => ({ 'rt-partner-secret': secret }),
        standIns: { 'path.report_id': UNKNOWN_REPORT, 'path.codename': 'no-such-partner' },
      },
      listCandidateReports: {
        base: () => ({ params: { ...record, candidate_id: '17' } }),
        headers: () => ({ 'rt-partner-secret': secret }),
        standIns: { ...recordStandIns, 'path.candidate_id': '999' },
      },
      listOffers: { base: () => ({ params: { subdomain: 'acme', department: 'Design' } }), standIns: { 'path.subdomain': 'no-such-company' } },
      readOffer: {
        base: () => ({ params: { subdomain: 'acme', slug: 'senior-backend-engineer' } }),
        standIns: { 'path.subdomain': 'no-such-company', 'path.slug': 'no-such-offer' },
      },
      // The showcase offer, whose CV is required and photo optional. The first answer (whose
      // fields are the ones changed) is to an optional file question: a blank answer is "not sent"
      // there, and a value in another field than `file` is not read. The document cannot know which
      // questions an offer requires or what kind each is, nor which ids exist.
      applyForOffer: {
        base: () => ({
          params: { subdomain: 'acme', slug: 'senior-backend-engineer', async: 'true' },
          body: {
            candidate: {
              name: 'Ada Lovelace',
              email: 'ada@example.com',
              phone: '+44 20 7946 0000',
              cover_letter: 'I would like to work on your logistics platform.',
              cv: file('cv.txt'),
              photo: file('photo.txt'),
              location_ids: [11],
              open_question_answers_attributes: [
                { open_question_id: 1010, file: file('sample.ts') },
                { open_question_id: 1002, content: 'A queue that should have been a table.' },
                { open_question_id: 1001, content: 'Engineer' },
                { open_question_id: 1003, flag: true },
                { open_question_id: 1004, content: '2 to 5' },
                { open_question_id: 1006, content: '2027-01-04' },
                { open_question_id: 1012, flag: true },
              ],
            },
          },
        }),
        standIns: {
          'path.subdomain': 'no-such-company',
          'path.slug': 'no-such-offer',
          'body.candidate.cv': ABSENT,
          'body.candidate.location_ids.0': 999,
          'body.candidate.open_question_answers_attributes.0.open_question_id': 999_999,
        },
      },
      deletePartner: {
        base: async () => {
          await register();
          return { params: record };
        },
        headers: apiToken,
        standIns: recordStandIns,
      },
    };
    const { found, checked } = await disagreements(platformApiDocument(mock.url), mock.url, fixtures);
    if (process.env.SHOW_EDGES) console.log(checked.join('\n'));
    expect(found).toEqual([]);
    expect(checked.length).toBeGreaterThan(100);
  });
});
