import { Router, type Response } from 'express';
import { z } from 'zod';
import { notFound } from '../../lib/errors.js';
import { parseOr422 } from '../../lib/http/validate.js';
import { jsonBody } from '../body-readers.js';
import { param } from '../path-params.js';
import type { PlatformPlugin, PlatformSide, ScriptedReport, ScriptOutcome } from './plugin.js';

/** A platform's id, as a script gives it: text, or a JSON number. */
const Id = z.union([z.string().trim().min(1, 'must not be empty').max(200), z.number().int().nonnegative()]).transform(String);

export const ConnectBody = z.object({
  partner_url: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(2000),
  partner_name: z.string().trim().min(1, 'is required').max(200),
  token: z.string().trim().min(1, 'is required').max(500),
});

export const SendBody = z.object({
  test_id: Id,
  test_name: z.string().trim().min(1, 'must not be empty').max(500).optional(),
  candidate_id: Id.optional(),
});

/** A test sent, on the wire. */
export function reportJson(r: ScriptedReport) {
  return {
    id: r.id,
    test: r.test,
    candidate: r.candidate,
    status: r.status,
    complete: r.complete,
    score: r.score,
    results_url: r.resultsUrl,
    details: r.details,
    problem: r.problem,
    page: r.page,
    updated_at: r.updatedAt,
  };
}

/**
 * `/_mock/platforms/…`: the recruiter of each platform the mock plays besides the hiring platform
 * (platforms/), as JSON, for scripts and the test harness — the same actions as its pages, with
 * the same calls to the partner:
 *
 *   GET  /_mock/platforms                               the platforms, each with its sandbox company and candidates
 *   GET  /_mock/platforms/{name}                        one of them
 *   POST /_mock/platforms/{name}/connect                {partner_url, partner_name, token}: its company connects to the
 *                                                       partner; {connection, credential?} (see plugin.ts `Connected`)
 *   GET  /_mock/platforms/{name}/tests                  the tests the partner lists to it (the platform calls the partner)
 *   POST /_mock/platforms/{name}/sends                  {test_id, test_name?, candidate_id?}: sends a test; 201 {report}
 *   GET  /_mock/platforms/{name}/reports/{report_id}    a test sent, as the platform shows it now
 *
 * A failed call to the partner answers `{"error"}` with what the recruiter is shown: 422 when the
 * partner refused (a 4xx), 502 when it failed (no answer, a 5xx, an answer the platform cannot
 * read). Like the sandbox, it has no login: the mock is a local tool. The hiring platform's own
 * recruiter is `/api/marketplace/…`.
 */
export function platformsRouter(deps: { platforms: readonly { plugin: PlatformPlugin; side: PlatformSide }[]; bodyLimitBytes: number }): Router {
  const router = Router();
  const json = jsonBody(deps.bodyLimitBytes);
  const byName = new Map(deps.platforms.map((p) => [p.plugin.name, p]));

  const platformOf = (name: string) => {
    const found = byName.get(name);
    if (!found) throw notFound('Unknown platform');
    return found;
  };
  const describe = ({ plugin, side }: { plugin: PlatformPlugin; side: PlatformSide }) => ({
    name: plugin.name,
    label: plugin.label,
    company: side.script.company(),
    candidates: side.script.candidates(),
  });
  const answer = <T>(res: Response, outcome: ScriptOutcome<T>, onOk: (value: T) => void) => {
    if (outcome.ok) return onOk(outcome.value);
    res.status(outcome.refused ? 422 : 502).json({ error: outcome.message });
  };

  router.get('/', (_req, res) => {
    res.json({ platforms: deps.platforms.map(describe) });
  });

  router.get('/:platform', (req, res) => {
    res.json({ platform: describe(platformOf(param(req, 'platform'))) });
  });

  router.post('/:platform/connect', json, async (req, res) => {
    const { side } = platformOf(param(req, 'platform'));
    const input = parseOr422(ConnectBody, req.body ?? {});
    const outcome = await side.script.connect({ url: input.partner_url, name: input.partner_name, token: input.token });
    answer(res, outcome, ({ connection, credential }) => res.json({ connection, ...(credential !== undefined && { credential }) }));
  });

  router.get('/:platform/tests', async (req, res) => {
    const { side } = platformOf(param(req, 'platform'));
    answer(res, await side.script.listTests(), (tests) => res.json({ tests }));
  });

  router.post('/:platform/sends', json, async (req, res) => {
    const { side } = platformOf(param(req, 'platform'));
    const input = parseOr422(SendBody, req.body ?? {});
    const outcome = await side.script.send({ testId: input.test_id, testName: input.test_name, candidateId: input.candidate_id });
    answer(res, outcome, (report) => res.status(201).json({ report: reportJson(report) }));
  });

  router.get('/:platform/reports/:reportId', (req, res) => {
    const { side } = platformOf(param(req, 'platform'));
    const reportId = param(req, 'reportId');
    const report = reportId.length <= 200 ? side.script.report(reportId) : undefined;
    if (!report) throw notFound('Unknown report');
    res.json({ report: reportJson(report) });
  });

  return router;
}
