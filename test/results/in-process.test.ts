import { afterEach, describe, expect, it } from 'vitest';
import { InvalidResultError } from '../../src/partner/index.js';
import { flowHarness, sendBody, type FlowHarness } from '../invitations/support.js';

/** `partner.reports`: results pushed from the vendor's code in the same process, through the same lifecycle. */
describe('the in-process results API', () => {
  let h: FlowHarness;
  afterEach(() => h.close());

  async function invited(kind?: 'assessment' | 'reference_check') {
    h = await flowHarness({ kind });
    const c = h.customer('Acme Corp', ['JavaScript fundamentals']);
    const body = sendBody(c.tests[0]!.id);
    await h.send(c.token, body);
    await h.starter.runOnce();
    return body.report_id;
  }
  const statusUpdates = (reportId: string) =>
    h.rows('SELECT body FROM report_updates WHERE report_id = ? ORDER BY id', reportId).map((r) => JSON.parse(r.body as string)).filter((b) => b.status);

  it('complete: recorded, then unchanged for the same result, conflict for another; one update for the platform', async () => {
    const reportId = await invited();
    const result = { score: '87%', subtitle: '13 of 15', properties: [{ label: 'Time', value: '24 min' }], completedAt: new Date('2026-11-01T08:59:00Z') };
    expect(h.results.complete(reportId, result)).toBe('recorded');
    expect(h.results.complete(reportId, result)).toBe('unchanged');
    expect(h.results.fail(reportId, { ...result, score: '12%' })).toBe('conflict');
    expect(h.results.cancel(reportId)).toBe('conflict');
    expect(statusUpdates(reportId)).toEqual([
      expect.objectContaining({ status: 'completed', score: '87%', subtitle: '13 of 15', completed_at: '2026-11-01T08:59:00.000Z' }),
    ]);
    expect(h.wakes()).toBeGreaterThan(0);
  });

  it('progress: recorded once per stage, never sent; conflict once the report finished, unknown for another report', async () => {
    const reportId = await invited();
    expect(h.results.progress(reportId, 'started')).toBe('recorded');
    expect(h.results.progress(reportId, 'started')).toBe('unchanged');
    expect(h.results.fail(reportId, { score: '20%' })).toBe('recorded');
    expect(h.results.progress(reportId, 'in_review')).toBe('conflict');
    expect(h.results.progress(reportId, 'started')).toBe('unchanged');
    expect(h.results.progress('5e1f0c2a-0000-4000-8000-ffffffffffff', 'opened')).toBe('unknown');
    expect(h.results.complete('not a report id', { score: '1' })).toBe('unknown');
    expect(h.invitations.progressOf(reportId).map((p) => p.stage)).toEqual(['started']);
  });

  it('cancel: the vendor cancels (recorded), again (unchanged); a result after it is a conflict', async () => {
    const reportId = await invited();
    expect(h.results.cancel(reportId)).toBe('recorded');
    expect(h.results.cancel(reportId)).toBe('unchanged');
    expect(h.results.complete(reportId, { score: '87%' })).toBe('conflict');
    expect(h.row('SELECT status, canceled_by FROM invitations WHERE report_id = ?', reportId)).toEqual({ status: 'canceled', canceled_by: 'vendor' });
  });

  it('a result the platform could not take throws InvalidResultError naming each field, and changes nothing', async () => {
    const reportId = await invited();
    let error: unknown;
    try {
      h.results.complete(reportId, { score: '87 points', properties: [{ label: '', value: 'x' }] });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InvalidResultError);
    expect(Object.keys((error as InvalidResultError).errors).sort()).toEqual(['properties.0.label', 'score']);
    expect(h.row('SELECT status FROM invitations WHERE report_id = ?', reportId)).toEqual({ status: 'sent' });
    expect(() => h.results.complete(reportId, { score: '1', completedAt: new Date(Number.NaN) })).toThrow(InvalidResultError);
  });

  it('for a check, subtitle and properties are dropped, and do not make the same result another one', async () => {
    const reportId = await invited('reference_check');
    expect(h.results.complete(reportId, { score: 'Good', subtitle: 'Two referees', properties: [{ label: 'a', value: 'b' }] })).toBe('recorded');
    expect(h.results.complete(reportId, { score: 'Good' })).toBe('unchanged');
    expect(statusUpdates(reportId)).toEqual([expect.not.objectContaining({ subtitle: expect.anything() })]);
  });
});
