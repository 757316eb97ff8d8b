import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Report } from '../../src/contract/schemas.js';
import { ACME, ADA, ALAN, GLOBEX, integrate, mockPlatform, register, send, stubPartner, type StubPartner } from './support.js';

let partner: StubPartner;
let platform: ReturnType<typeof mockPlatform>;
let secret: string;

beforeEach(async () => {
  partner = await stubPartner();
  platform = mockPlatform();
  secret = await register(platform.app, 'skill-check', partner.urls);
  await integrate(platform.app, ACME.id, 'skill-check');
});
afterEach(() => partner.close());

const patch = (reportId: string, body: object, credential: string | null = secret, codename = 'skill-check') => {
  const req = request(platform.app).patch(`/api/p/${codename}/reports/${reportId}`);
  if (credential !== null) req.set('rt-partner-secret', credential);
  return req.send(body);
};

describe('reports API: PATCH /api/p/{codename}/reports/{report_id}', () => {
  it('merges a partial update; absent fields stay as they were', async () => {
    const report = await send(platform.app, 'skill-check');
    platform.clock.advance(5 * 60_000);
    const first = await patch(report.id, { subtitle: 'Senior level', urls: { show: 'https://partner.example/r/1' } }).expect(200);
    expect(Report.parse(first.body.report)).toMatchObject({
      id: report.id,
      status: 'sent',
      subtitle: 'Senior level',
      urls: { show: 'https://partner.example/r/1' },
      updated_at: '2026-01-05T09:05:00.000Z',
    });
    const second = await patch(report.id, {
      status: 'completed',
      score: '76%',
      completed_at: '2026-01-05T09:04:00Z',
      properties: [{ label: 'Time spent', value: '34 min' }],
      urls: { cancel: 'https://partner.example/r/1/cancel' },
    }).expect(200);
    expect(second.body.report).toMatchObject({
      status: 'completed',
      score: '76%',
      completed_at: '2026-01-05T09:04:00Z',
      subtitle: 'Senior level',
      properties: [{ label: 'Time spent', value: '34 min' }],
      urls: { show: 'https://partner.example/r/1', cancel: 'https://partner.example/r/1/cancel' },
    });
  });

  it('lets terminal statuses be corrected among themselves', async () => {
    const report = await send(platform.app, 'skill-check');
    await patch(report.id, { status: 'completed', score: '40%' }).expect(200);
    const res = await patch(report.id, { status: 'failed' }).expect(200);
    expect(res.body.report).toMatchObject({ status: 'failed', score: '40%' });
  });

  it.each(['completed', 'failed', 'canceled'])('refuses to move a %s report back to sent (422) and changes nothing', async (terminal) => {
    const report = await send(platform.app, 'skill-check');
    await patch(report.id, { status: terminal }).expect(200);
    const res = await patch(report.id, { status: 'sent', score: '1/2' }).expect(422);
    expect(res.body.errors).toEqual({ status: [`cannot move from ${terminal} back to sent`] });
    const list = await request(platform.app)
      .get(`/api/p/skill-check/c/${ACME.id}/candidates/${ADA}/reports`)
      .set('rt-partner-secret', secret)
      .expect(200);
    expect(list.body.reports[0]).toMatchObject({ status: terminal, score: null });
  });

  it('refuses subtitle and properties from a background-check partner (422), accepts its status', async () => {
    const bgSecret = await register(platform.app, 'bg-check', partner.urls, { kind: 'background_check', name: 'Checkr-ish' });
    await integrate(platform.app, ACME.id, 'bg-check');
    const report = await send(platform.app, 'bg-check');
    const res = await patch(report.id, { subtitle: 'Clear', properties: [{ label: 'County', value: 'clear' }] }, bgSecret, 'bg-check').expect(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['properties', 'subtitle']);
    await patch(report.id, { status: 'completed', score: 'Clear' }, bgSecret, 'bg-check').expect(200);
  });

  it.each([
    ['a score over 100 characters', { score: '9'.repeat(101) }, 'score'],
    ['a score that is not text', { score: 76 }, 'score'],
    ['an unknown status', { status: 'cancelled' }, 'status'],
    ['a completed_at that is not ISO 8601 UTC', { completed_at: '05/01/2026' }, 'completed_at'],
    ['a property without a label', { properties: [{ value: 'x' }] }, 'properties.0.label'],
    ['a cancel URL that is not http(s)', { urls: { cancel: 'javascript:alert(1)' } }, 'urls.cancel'],
    ['an extra URL that is not a URL', { urls: { results: 'soon' } }, 'urls.results'],
  ])('answers 422 for %s', async (_what, body, field) => {
    const report = await send(platform.app, 'skill-check');
    const res = await patch(report.id, body).expect(422);
    expect(res.body.errors).toHaveProperty([field]);
  });

  it('accepts a score longer than the badge shows and stores it whole (contract §3.2)', async () => {
    const report = await send(platform.app, 'skill-check');
    const score = '76 of 100 points';
    const res = await patch(report.id, { status: 'completed', score }).expect(200);
    expect(res.body.report.score).toBe(score);
    const stored = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/reports/${report.id}`).expect(200);
    expect(JSON.stringify(stored.body)).toContain(`"score":"${score}"`);
    const longest = '9'.repeat(100);
    expect((await patch(report.id, { score: longest }).expect(200)).body.report.score).toBe(longest);
  });

  it('shows a long score cut to five characters in the badge, the whole text in its title', async () => {
    const report = await send(platform.app, 'skill-check');
    await patch(report.id, { status: 'completed', score: '76 of 100 <b>points</b>' }).expect(200);
    for (const page of [`/companies/${ACME.id}/candidates/${ADA}`, `/companies/${ACME.id}`]) {
      const html = (await request(platform.app).get(page).expect(200)).text;
      expect(html).toMatch(/<span class="score" title="76 of 100 &lt;b&gt;points&lt;\/b&gt;">76 of…<\/span>/);
      expect(html).not.toContain('<b>points</b>');
    }
    await patch(report.id, { score: '76%' }).expect(200);
    const html = (await request(platform.app).get(`/companies/${ACME.id}/candidates/${ADA}`).expect(200)).text;
    expect(html).toContain('<span class="score">76%</span>');
  });

  it('authenticates with RT-PARTNER-SECRET only: a Bearer header alone is refused (401)', async () => {
    const report = await send(platform.app, 'skill-check');
    const res = await request(platform.app)
      .patch(`/api/p/skill-check/reports/${report.id}`)
      .set('authorization', `Bearer ${secret}`)
      .send({ status: 'completed' })
      .expect(401);
    expect(res.body.error).toMatch(/RT-PARTNER-SECRET/);
  });

  it('refuses a missing or wrong secret (401)', async () => {
    const report = await send(platform.app, 'skill-check');
    expect((await patch(report.id, { status: 'completed' }, null).expect(401)).body.error).toBe('Missing RT-PARTNER-SECRET header');
    expect((await patch(report.id, { status: 'completed' }, secret.slice(0, -1)).expect(401)).body.error).toBe('Invalid partner secret');
    await patch(report.id, { status: 'completed' }, 'x'.repeat(5000)).expect(401);
  });

  it("refuses another partner's secret for this codename (401)", async () => {
    const otherSecret = await register(platform.app, 'other', partner.urls);
    const report = await send(platform.app, 'skill-check');
    await patch(report.id, { status: 'completed' }, otherSecret).expect(401);
  });

  it("answers 404 for an unknown report, a malformed id, and another partner's report", async () => {
    const otherSecret = await register(platform.app, 'other', partner.urls);
    const report = await send(platform.app, 'skill-check');
    await patch('7d0c8f0e-0f6b-4c55-9a53-2b0d5b8f4e21', { status: 'completed' }).expect(404);
    await patch('not-a-uuid', { status: 'completed' }).expect(404);
    const res = await patch(report.id, { status: 'completed' }, otherSecret, 'other').expect(404);
    expect(res.body).toEqual({ error: 'Unknown report' });
  });

  it('answers 415 for a body that is not JSON', async () => {
    const report = await send(platform.app, 'skill-check');
    await request(platform.app)
      .patch(`/api/p/skill-check/reports/${report.id}`)
      .set('rt-partner-secret', secret)
      .set('content-type', 'application/x-www-form-urlencoded')
      .send('status=completed')
      .expect(415);
  });

  it('treats a report whose send failed as unknown (404)', async () => {
    partner.answer('/send_candidate', 500, { error: 'boom' });
    const res = await request(platform.app)
      .post(`/api/marketplace/c/${ACME.id}/partners/skill-check/send`)
      .send({ candidate_id: ADA, test_id: 2, test_name: 'Ruby', report_id: '11111111-2222-4333-8444-555555555555' })
      .expect(502);
    expect(res.body.error).toBe('There was a problem with the Skill Check API');
    await patch('11111111-2222-4333-8444-555555555555', { status: 'completed' }).expect(404);
  });
});

describe('reports API: GET …/c/{company_id}/candidates/{candidate_id}/reports', () => {
  it("lists the candidate's reports of this partner only", async () => {
    const otherSecret = await register(platform.app, 'other', partner.urls);
    await integrate(platform.app, ACME.id, 'other');
    const mine = await send(platform.app, 'skill-check');
    await send(platform.app, 'other');
    await send(platform.app, 'skill-check', { candidate_id: ALAN });
    const res = await request(platform.app)
      .get(`/api/p/skill-check/c/${ACME.id}/candidates/${ADA}/reports`)
      .set('rt-partner-secret', secret)
      .expect(200);
    expect(res.body.reports.map((r: Report) => r.id)).toEqual([mine.id]);
    expect(Report.parse(res.body.reports[0])).toMatchObject({ codename: 'skill-check', candidate_id: ADA, status: 'sent', test_id: '2' });
    const other = await request(platform.app)
      .get(`/api/p/other/c/${ACME.id}/candidates/${ADA}/reports`)
      .set('rt-partner-secret', otherSecret)
      .expect(200);
    expect(other.body.reports).toHaveLength(1);
  });

  it('answers [] for a known candidate without reports', async () => {
    const res = await request(platform.app)
      .get(`/api/p/skill-check/c/${ACME.id}/candidates/${ALAN}/reports`)
      .set('rt-partner-secret', secret)
      .expect(200);
    expect(res.body).toEqual({ reports: [] });
  });

  it('answers 404 for an unknown candidate, or a company that did not integrate the partner', async () => {
    await request(platform.app).get(`/api/p/skill-check/c/${ACME.id}/candidates/999/reports`).set('rt-partner-secret', secret).expect(404);
    await request(platform.app).get(`/api/p/skill-check/c/${GLOBEX.id}/candidates/31/reports`).set('rt-partner-secret', secret).expect(404);
    await request(platform.app).get(`/api/p/skill-check/c/abc/candidates/17/reports`).set('rt-partner-secret', secret).expect(404);
  });

  it('requires the partner secret (401)', async () => {
    await request(platform.app)
      .get(`/api/p/skill-check/c/${ACME.id}/candidates/${ADA}/reports`)
      .set('authorization', `Bearer ${ACME.token}`)
      .expect(401);
  });
});
