import { notFound, unprocessable } from '../../../lib/errors.js';
import { parseOr422 } from '../../../lib/http/validate.js';
import type { ScriptedCandidate, ScriptedPlatform, ScriptedReport } from '../plugin.js';
import { AppInput } from './pages.js';
import { BOB_COMPANY } from './seed.js';
import { isComplete, shownStatus, KIT_CALLBACK_PATH, KIT_WEBHOOKS_PATH, type Bob } from './service.js';
import type { Assessment, BobCandidate, BobStore } from './store.js';

/**
 * Vandelay Industries' side of Bob as a script drives it (`/_mock/platforms/hibob/…`, the harness):
 * the same actions as the pages. `connect` is the vendor's app set up with the partner's URLs
 * (`{partner}/hibob/oauth/callback`, `{partner}/hibob/webhooks`) and Vandelay's install of it: the
 * browser's visit to the callback with a one-time code, which the partner exchanges at the token
 * URL — the customer's token plays no part, as Bob knows none. The tests are the catalog the partner
 * registered for Vandelay (waited for right after an install: the partner registers it in the
 * background); a send orders one for a candidate, and is refused when the vendor's listener does not
 * take the webhook (Bob retries it all the same); a report's status is what the PATCHes said.
 */
export function bobScript(deps: { bob: Bob; store: BobStore }): ScriptedPlatform {
  const { bob, store } = deps;
  const companyId = BOB_COMPANY.id;
  const companyPage = `/hibob/companies/${companyId}`;

  const candidateJson = (c: BobCandidate): ScriptedCandidate => ({ id: String(c.id), name: `${c.firstName} ${c.lastName}`, email: c.email });
  const candidateOf = (id: string | undefined): BobCandidate => {
    const found = id === undefined ? store.candidates(companyId)[0] : /^[1-9]\d{0,15}$/.test(id) ? store.candidate(companyId, Number(id)) : undefined;
    if (!found) throw notFound('Unknown candidate');
    return found;
  };
  const reportOf = (a: Assessment): ScriptedReport => ({
    id: a.requestId,
    test: { id: a.packageId, name: a.packageName },
    candidate: candidateJson(store.candidate(a.companyId, a.candidateId)!),
    status: shownStatus(a),
    complete: isComplete(a),
    score: a.score,
    resultsUrl: a.resultUrl,
    details: {
      ...(a.verdict !== null && { verdict: a.verdict }),
      ...(a.comments !== null && { comments: a.comments }),
      ...(a.providerAssessmentId !== null && { providerAssessmentId: a.providerAssessmentId }),
    },
    problem: bob.problemOf(a),
    page: `${companyPage}/candidates/${a.candidateId}#assessment-${a.requestId}`,
    updatedAt: a.updatedAt,
  });
  /** The catalog, once the partner has registered it since the install. */
  const catalog = async () => {
    const company = bob.company(companyId);
    if (company.installedAt === null) throw unprocessable(`${company.name} has not installed the vendor's app: connect first.`);
    if (!(await bob.catalogRegistered(companyId))) {
      return {
        ok: false as const,
        refused: false,
        message: `${bob.app().name ?? 'The vendor'} has registered no catalog for ${company.name} since the install (POST /hiring/assessments/packages with its token).`,
      };
    }
    return { ok: true as const, value: bob.activePackages(companyId).map((p) => ({ id: p.id, name: p.name })) };
  };

  return {
    company: () => ({ id: companyId, name: bob.company(companyId).name, page: companyPage }),
    candidates: () => store.candidates(companyId).map(candidateJson),

    async connect(partner) {
      const base = partner.url.replace(/\/+$/, '');
      const input = parseOr422(AppInput, { name: partner.name, redirect_uri: `${base}${KIT_CALLBACK_PATH}`, webhook_url: `${base}${KIT_WEBHOOKS_PATH}` });
      const app = bob.registerApp({ name: input.name, redirectUri: input.redirect_uri, webhookUrl: input.webhook_url });
      const installed = await bob.install(companyId);
      if (!installed.ok) return installed;
      const company = bob.company(companyId);
      return {
        ok: true,
        value: { connection: { company_id: company.id, app: app.name, redirect_uri: app.redirectUri, webhook_url: app.webhookUrl, installed_at: company.installedAt } },
      };
    },

    listTests: catalog,

    async send({ testId, candidateId }) {
      const candidate = candidateOf(candidateId);
      const listed = await catalog();
      if (!listed.ok) return listed;
      const { assessment, sent } = await bob.order(companyId, candidate.id, testId);
      if (!sent.ok) {
        // The listener answered and refused (a 4xx), or failed: as a send the partner refused or failed.
        const refused = sent.status !== null && sent.status >= 400 && sent.status < 500;
        return { ok: false, refused, message: `Bob ordered it (assessmentRequestId ${assessment.requestId}), but: ${sent.message}` };
      }
      return { ok: true, value: reportOf(assessment) };
    },

    report(reportId) {
      const found = reportId.length <= 100 ? store.byRequestId(reportId) : undefined;
      return found && found.companyId === companyId ? reportOf(found) : undefined;
    },
  };
}
