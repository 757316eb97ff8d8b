import { z } from 'zod';
import { ReportId } from '../../contract/schemas.js';

/**
 * [kit decision] An invitation's report id, as the kit's own routes take it (the results endpoint,
 * the signed links, the dashboard): the id the platform knows the report by. A UUID for the
 * platforms that send one or take the kit's (the hiring platform, Greenhouse, Ashby), compared in
 * lowercase; or a platform's own id where the platform names the order itself (Bob's numeric
 * `assessmentRequestId`): letters, digits and `.`, `_`, `:`, `-`, at most 100, starting with a
 * letter or digit, kept as sent. Ids of different platforms share one namespace (`invitations.report_id`):
 * a platform whose own ids could meet another's prefixes them.
 */
export const KitReportId = z.union([ReportId, z.string().regex(/^[0-9A-Za-z][0-9A-Za-z._:-]{0,99}$/, 'must be a UUID or a platform\'s id')]);
