import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, settingsOf } from '../../../src/partner/config.js';
import { kitPlatforms } from '../../../src/partner/platforms/index.js';
import { ashbyPlatform } from '../../../src/partner/platforms/ashby/index.js';
import { ashbyDeliveryRequest, judgeAshbyAnswer } from '../../../src/partner/platforms/ashby/delivery.js';
import { assessmentTypeId, uuidV5 } from '../../../src/partner/platforms/ashby/ids.js';
import { assessmentUpdate } from '../../../src/partner/platforms/ashby/update.js';
import { mergeUpdates } from '../../../src/partner/updates/body.js';

/**
 * The decisions of docs/ashby.md that are functions: the ASHBY_API_URL rule (§5), the mapping of
 * the kit's updates to `assessment.update` (§6) and the verdict on Ashby's answers (§6).
 */

const ID = '9f1c2b3a-4d5e-4f60-8a7b-1c2d3e4f5a6b';
const AT = '2026-11-01T09:30:00.123Z';
const SHOW = 'https://partner.example/results?token=abc';

describe('ASHBY_API_URL', () => {
  const apiUrl = (value?: string) => settingsOf(loadConfig({ ...(value !== undefined && { ASHBY_API_URL: value }) }), ashbyPlatform()).apiUrl;
  const problem = (value: string) => {
    try {
      loadConfig({ ASHBY_API_URL: value }, kitPlatforms());
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error(`${value} was accepted`);
  };

  it("is Ashby's API by default; an https base keeps its path without the trailing slash; http on loopback is the operator's to choose", () => {
    expect(apiUrl()).toBe('https://api.ashbyhq.com');
    expect(apiUrl('')).toBe('https://api.ashbyhq.com');
    expect(apiUrl('https://proxy.example/ashby/')).toBe('https://proxy.example/ashby');
    expect(apiUrl('http://127.0.0.1:4000')).toBe('http://127.0.0.1:4000');
    expect(apiUrl('http://localhost:4000/')).toBe('http://localhost:4000');
    expect(apiUrl('http://[::1]:4000')).toBe('http://[::1]:4000');
  });

  it.each([
    ['http://api.ashbyhq.com', /must be https/],
    ['http://10.0.0.5', /must be https/],
    ['https://user:pass@api.ashbyhq.com', /user name or password/],
    ['https://api.ashbyhq.com/?a=1', /query or a fragment/],
    ['ftp://api.ashbyhq.com', /http\(s\) URL/],
    ['api.ashbyhq.com', /http\(s\) URL/],
  ])('refuses %s at start-up, naming the setting', (value, why) => {
    const message = problem(value);
    expect(message).toContain('ASHBY_API_URL');
    expect(message).toMatch(why);
  });
});

describe('ids', () => {
  it('are RFC 9562 version 5 UUIDs: the RFC\'s example, and one type per test id', () => {
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(assessmentTypeId('1')).toBe(assessmentTypeId('1'));
    expect(assessmentTypeId('1')).not.toBe(assessmentTypeId('2'));
  });
});

describe("the kit's update in Ashby's words", () => {
  const result = { status: 'completed', score: '87%', score_value: 87, completed_at: AT, urls: { show: SHOW }, at: AT } as const;

  it('tells nothing of the start, which the start answer told, nor of a cancel Ashby made', () => {
    expect(assessmentUpdate(ID, { started: true, urls: { show: SHOW }, at: AT }, 0)).toBeUndefined();
    expect(assessmentUpdate(ID, { status: 'canceled', canceled_by: 'platform', cancel_reason: 'Canceled in Ashby', at: AT }, 0)).toBeUndefined();
  });

  it('tells each stage in its words, Started among them, with the time it happened in milliseconds', () => {
    expect(assessmentUpdate(ID, { stage: 'opened', at: AT }, 0)?.assessment_status?.value).toBe('Opened');
    expect(assessmentUpdate(ID, { stage: 'in_review', at: AT }, 0)?.assessment_status?.value).toBe('In review');
    expect(assessmentUpdate(ID, { stage: 'started', at: AT }, 0)).toEqual({
      assessment_id: ID,
      timestamp: Date.parse(AT),
      assessment_status: { identifier: 'status', label: 'Status', type: 'string', value: 'Started' },
    });
  });

  it('tells the newest state of updates merged after an outage: the result over a stage, with the newest time', () => {
    const later = '2026-11-01T10:00:00.000Z';
    const merged = mergeUpdates([{ started: true, urls: { show: 'https://old.example/' }, at: AT }, { stage: 'started', at: AT }, { ...result, at: later }]);
    const update = assessmentUpdate(ID, merged, 0)!;
    expect(update).toMatchObject({ timestamp: Date.parse(later), assessment_status: { value: 'Completed' }, assessment_result: { value: 87 }, assessment_profile_url: { value: SHOW } });
  });

  it('types the result: a number where the score reads as one (an older update without score_value too), text otherwise, passed or failed without a score', () => {
    expect(assessmentUpdate(ID, result, 0)?.assessment_result).toEqual({ identifier: 'score', label: 'Score', type: 'numeric_score', value: 87 });
    const { score_value: _, ...older } = result;
    expect(assessmentUpdate(ID, { ...older, score: '4.5' }, 0)?.assessment_result).toMatchObject({ type: 'numeric_score', value: 4.5 });
    expect(assessmentUpdate(ID, { ...result, score: 'A+', score_value: null }, 0)?.assessment_result).toEqual({ identifier: 'score', label: 'Score', type: 'string', value: 'A+' });
    expect(assessmentUpdate(ID, { ...result, status: 'failed', score: null, score_value: null }, 0)).toMatchObject({
      assessment_status: { value: 'Failed' },
      assessment_result: { identifier: 'result', label: 'Result', type: 'boolean_success', value: false },
    });
  });

  it('makes metadata of the subtitle and properties, each with an identifier of its own', () => {
    const update = assessmentUpdate(ID, { ...result, subtitle: 'Strong', properties: [{ label: 'status', value: 'a' }, { label: 'status', value: 'b' }, { label: 'Summary', value: 'c' }] }, 0)!;
    expect(update.metadata).toEqual([
      { identifier: 'metadata:Summary', label: 'Summary', type: 'string', value: 'Strong' },
      { identifier: 'metadata:status', label: 'status', type: 'string', value: 'a' },
      { identifier: 'metadata:status (2)', label: 'status (2)', type: 'string', value: 'b' },
      { identifier: 'metadata:Summary (2)', label: 'Summary (2)', type: 'string', value: 'c' },
    ]);
  });

  it("tells a vendor's cancel with its reason, or who canceled", () => {
    expect(assessmentUpdate(ID, { status: 'canceled', canceled_by: 'vendor', cancel_reason: 'Duplicate', at: AT }, 0)?.cancelled_reason?.value).toBe('Duplicate');
    expect(assessmentUpdate(ID, { status: 'canceled', canceled_by: 'vendor', cancel_reason: null, at: AT }, 0)?.cancelled_reason?.value).toBe(
      'Canceled by the assessment provider',
    );
  });

  it('refuses a result without its results page: Ashby requires one', () => {
    expect(() => assessmentUpdate(ID, { ...result, urls: {} }, 0)).toThrow(/urls\.show/);
  });

  it('is posted to ASHBY_API_URL with the key as the Basic user name and an empty password', async () => {
    const target = { reportId: ID, accountId: 3, data: {}, credential: async () => 'key:with:colons' };
    const request = await ashbyDeliveryRequest(target, result, { apiUrl: 'https://api.ashbyhq.com', now: () => 0, accountsCommand: () => '' });
    expect(request).toMatchObject({ url: 'https://api.ashbyhq.com/assessment.update', method: 'POST' });
    expect(Buffer.from(request!.headers.authorization!.replace(/^Basic /, ''), 'base64').toString()).toBe('key:with:colons:');
  });
});

describe("Ashby's answers", () => {
  const answer = (status: number, body: unknown) => judgeAshbyAnswer({ status, body: typeof body === 'string' ? body : JSON.stringify(body), request: { url: 'https://api.ashbyhq.com/assessment.update', method: 'POST', headers: {} } });

  it('goes by the status when it says success or is no JSON', () => {
    expect(answer(200, { success: true, results: {} })).toEqual({});
    expect(answer(200, '')).toEqual({});
    expect(answer(503, '<html>')).toEqual({});
  });

  it('makes success: false a dead letter where the code says the request or the key is wrong, a retry otherwise', () => {
    for (const code of ['invalid_input', 'invalid_api_key', 'missing_endpoint_permission', 'unauthorized', 'forbidden']) {
      expect(answer(200, { success: false, errorInfo: { code, message: 'No' } }), code).toEqual({ outcome: 'dead', reason: `success: false, ${code}: No` });
    }
    expect(answer(200, { success: false, errors: ['invalid_input'] }).outcome).toBe('dead');
    for (const body of [{ success: false, errorInfo: { code: 'assessment_not_found' } }, { success: false, errorInfo: { code: 'rate_limited' } }, { success: false }]) {
      expect(answer(200, body).outcome, JSON.stringify(body)).toBe('retry');
    }
  });

  it("reads errorInfo as the reason of an answer the status decides", () => {
    expect(answer(403, { success: false, errorInfo: { code: 'missing_endpoint_permission', message: 'Needs candidatesWrite' } })).toEqual({
      reason: 'missing_endpoint_permission: Needs candidatesWrite',
    });
  });
});
