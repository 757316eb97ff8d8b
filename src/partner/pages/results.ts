import { Router } from 'express';
import type { Logger } from '../../lib/http/logger.js';
import { KIND_WORDING } from '../invitations/kinds.js';
import type { InvitationLinks } from '../invitations/links.js';
import type { InvitationStore } from '../invitations/store.js';
import type { Provider } from '../provider/types.js';
import { resultDetailsOf } from '../invitations/for-provider.js';
import { pageErrors, renderMessage, renderPage } from './render.js';

/**
 * The recruiter's results page, `GET /results?token=…`: the link the report's `urls.show` carries.
 * The signed link is the credential (audience "results"); it shows one report and nothing else.
 */
export function resultsPage(deps: {
  invitations: InvitationStore;
  links: Pick<InvitationLinks, 'verify'>;
  provider: Provider;
  logger: Logger;
  /** The vendor's name, in the page header (see `CandidatePagesDeps.vendorName`). */
  vendorName?: string;
}): Router {
  const router = Router();
  router.get('/results', async (req, res) => {
    const verified = deps.links.verify('results', req.query.token);
    const invitation = verified.ok ? await deps.invitations.get(verified.reportId) : undefined;
    if (!invitation) {
      const expired = !verified.ok && verified.reason === 'expired';
      return renderMessage(res, expired ? 410 : 400, {
        title: expired ? 'This results link has expired' : 'This results link does not work',
        text: expired
          ? 'Open the report again from the platform: it links to a fresh results page.'
          : 'The link is incomplete or was changed. Open it again from the report on the platform.',
      }, { vendor: deps.vendorName });
    }
    const details = await resultDetailsOf(deps.provider, invitation);
    renderPage(res, './results', {
      pageTitle: `${invitation.firstName} ${invitation.lastName} · ${invitation.testName}`,
      invitation,
      details,
      wording: KIND_WORDING[deps.provider.kind],
      kind: deps.provider.kind,
      vendor: deps.vendorName,
    });
  });
  router.use(pageErrors(deps.logger, { vendor: deps.vendorName }));
  return router;
}
