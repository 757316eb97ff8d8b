import { afterEach, describe, expect, it } from 'vitest';
import { InvalidResultError } from '../../src/partner/index.js';
import { flowHarness, sendBody, type FlowHarness } from '../invitations/support.js';

/** `partner.reports`: results pushed from the vendor's code in the same process, through the same lifecycle. */
describe('the in-process results API', () => {
  let h: FlowHarness;
  afterEach(() => h.close());

  async function invited(kind?: 'assessment' | 'reference_check') {
    h = await flowHarness({ kind });
    const c = await h.customer('Acme Corp', ['JavaScript fundamentals']);
    const body = sendBody(c.tests[0]!.id);
    await h.send(c.token, body);
    await h.starter.runOnce();
    return body.report_id;
  }
  const statusUpdates = async (reportId: string) =>
    (await h.rows('SELECT body FROM report_updates WHERE report_id = ? ORDER BY id', reportId)).map((r) => JSON.parse(r.body as string)).filter((b) => b.status);

  it('complete: recorded, then unchanged for the same result, conflict for another; one update for the platform', async () => {
    const reportId = await invited();
    const result = { score: '87%', subtitle: '13 of 15', properties: [{ label: 'Time', value: '24 min' }], completedAt: new Date('2026-11-01T08:59:00Z') };
    expect(await h.results.complete(reportId, result)).toBe('recorded');
    expect(await h.results.complete(reportId, result)).toBe('unchanged');
    expect(await h.results.fail(reportId, { ...result, score: '12%' })).toBe('conflict');
    expect(await h.results.cancel(reportId)).toBe('conflict');
    expect(await statusUpdates(reportId)).toEqual([
      expect.objectContaining({ status: 'completed', score: '87%', subtitle: '13 of 15', completed_at: '2026-11-01T08:59:00.000Z' }),
    ]);
    expect(h.wakes()).toBeGreaterThan(0);
  });

  it('progress: recorded once per stage, never sent; conflict once the report finished, unknown for another report', async () => {
    const reportId = await invited();
    expect(await h.results.progress(reportId, 'started')).toBe('recorded');
    expect(await h.results.progress(reportId, 'started')).toBe('unchanged');
    expect(await h.results.fail(reportId, { score: '20%' })).toBe('recorded');
    expect(await h.results.progress(reportId, 'in_review')).toBe('conflict');
    expect(await h.results.progress(reportId, 'started')).toBe('unchanged');
    expect(await h.results.progress('5e1f0c2a-0000-4000-8000-ffffffffffff', 'opened')).toBe('unknown');
    expect(await h.results.complete('not a report id', { score: '1' })).toBe('unknown');
    expect((await h.invitations.progressOf(reportId)).map((p) => p.stage)).toEqual(['started']);
  });

  it('cancel: the vendor cancels (recorded), again (unchanged); a result after it is a conflict', async () => {
    const reportId = await invited();
    expect(await h.results.cancel(reportId)).toBe('recorded');
    expect(await h.results.cancel(reportId)).toBe('unchanged');
    expect(await h.results.complete(reportId, { score: '87%' })).toBe('conflict');
    expect(await h.row('SELECT status, canceled_by FROM invitations WHERE report_id = ?', reportId)).toEqual({ status: 'canceled', canceled_by: 'vendor' });
  });

  it('a result the platform could not take rejects with InvalidResultError naming each field, and changes nothing', async () => {
    const reportId = await invited();
    let error: unknown;
    try {
      await h.results.complete(reportId, { score: '87 points', properties: [{ label: '', value: 'x' }] });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InvalidResultError);
    expect(Object.keys((error as InvalidResultError).errors).sort()).toEqual(['properties.0.label', 'score']);
    expect(await h.row('SELECT status FROM invitations WHERE report_id = ?', reportId)).toEqual({ status: 'sent' });
    await expect(h.results.complete(reportId, { score: '1', completedAt: new Date(Number.NaN) })).rejects.toThrow(InvalidResultError);
  });

  it('for a check, subtitle and properties are kept with the result, as for an assessment: the same again is unchanged, other details a conflict', async () => {
    const reportId = await invited('reference_check');
    const result = { score: 'Good', subtitle: 'Two referees', properties: [{ label: 'a', value: 'b' }] };
    expect(await h.results.complete(reportId, result)).toBe('recorded');
    expect(await h.results.complete(reportId, result)).toBe('unchanged');
    expect(await h.results.complete(reportId, { score: 'Good' })).toBe('conflict');
    expect(await statusUpdates(reportId)).toEqual([expect.objectContaining({ subtitle: 'Two referees', properties: [{ label: 'a', value: 'b' }] })]);
  });
});
