import { Router, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import { notFound } from '../../../lib/errors.js';
import { parseOr422 } from '../../../lib/http/validate.js';
import { jsonBody } from '../../body-readers.js';
import { idParam } from '../../path-params.js';
import { TAKE_HOME_TESTS_PATH, type Greenhouse } from './service.js';
import type { GreenhousePartner } from './store.js';

/** The partner as a company configures it, from the sandbox's form or `POST /api/greenhouse/…/partner`. */
export const PartnerInput = z.object({
  name: z.string().trim().min(1, 'is required').max(200),
  api_key: z.string().trim().min(1, 'is required').max(500),
  base_url: z
    .url({ protocol: /^https?$/, error: (issue) => (issue.input === undefined ? 'is required' : 'must be an absolute http(s) URL') })
    .max(2000)
    .refine((u) => {
      const url = new URL(u);
      return url.username === '' && url.password === '' && url.search === '' && url.hash === '';
    }, 'must be a base URL, without credentials, query or fragment'),
});

/** What the platform shows of a configured partner: never the key, only its last characters. */
export function partnerJson(p: GreenhousePartner) {
  return {
    company_id: p.companyId,
    name: p.name,
    // Short keys would be given away by their last characters.
    api_key_hint: p.apiKey.length >= 12 ? `…${p.apiKey.slice(-4)}` : '…',
    urls: { list_tests: p.urls.listTests, send_test: p.urls.sendTest, test_status: p.urls.testStatus, response_error: p.urls.responseError },
    updated_at: p.updatedAt,
  };
}

/**
 * Greenhouse's side over HTTP:
 *
 *   PATCH /integrations/testing_partners/take_home_tests/{id}   the partner: "the test is complete"
 *   GET|POST /api/greenhouse/companies/{id}/partner             the partner's key and URLs, as JSON
 *                                                               (what `npm run dev` configures)
 *
 * The PATCH is logged and takes faults like the endpoints the other platform's partners call
 * (`greenhouse.take_home_tests.update`), so a partner's retries can be exercised.
 */
export function greenhouseRouter(deps: {
  greenhouse: Greenhouse;
  endpoint: (name: string) => RequestHandler[];
  bodyLimitBytes: number;
}): Router {
  const { greenhouse } = deps;
  const router = Router();

  router.patch(`${TAKE_HOME_TESTS_PATH}/:id`, ...deps.endpoint('greenhouse.take_home_tests.update'), (req, res) => {
    const { test, then } = greenhouse.receivePatch(req.headers.authorization, idParam(req, 'id'));
    res.locals.call = { reportId: test.partnerInterviewId ?? undefined };
    // Greenhouse answers with a status alone, then reads test_status.
    res.once('finish', then);
    res.status(200).end();
  });

  const companyId = (req: Request) => {
    const id = idParam(req, 'companyId');
    if (id === undefined) throw notFound('Unknown company');
    return greenhouse.company(id).id;
  };

  router.get('/api/greenhouse/companies/:companyId/partner', (req, res) => {
    const partner = greenhouse.configured(companyId(req));
    if (!partner) throw notFound('No partner is configured');
    res.json({ partner: partnerJson(partner) });
  });

  router.post('/api/greenhouse/companies/:companyId/partner', jsonBody(deps.bodyLimitBytes), (req, res) => {
    const id = companyId(req);
    const input = parseOr422(PartnerInput, req.body ?? {});
    const partner = greenhouse.configure(id, { name: input.name, apiKey: input.api_key, baseUrl: input.base_url });
    res.json({ partner: partnerJson(partner) });
  });

  return router;
}
