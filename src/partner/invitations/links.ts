import { createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Clock } from '../../lib/clock.js';
import { KitReportId } from './report-id.js';

/**
 * Signed links to an invitation: the candidate's (to take the test) and the recruiter's (the
 * results page the report's `urls.show` points at). A link is a bearer credential for one report,
 * so it is an HS256 JWT with a fixed algorithm, issuer, audience and expiry; the audience keeps a
 * candidate link from opening the results and the other way round.
 *
 * Tokens travel in the query string, which the request log never writes (http/request-log.ts), and
 * pages send `Referrer-Policy: no-referrer` (helmet), so they do not leak to other sites.
 */
export const LINK_ISSUER = 'partner-integration-kit';
/**
 * `preview` is not a link of its own: the dashboard adds it to a candidate link an operator opens
 * from an e-mail's preview, so the candidate page knows the candidate did not open it.
 */
export type LinkAudience = 'candidate' | 'results' | 'preview';
/** How long a preview mark lasts: the operator's click, then the page loading. */
const PREVIEW_TTL_MS = 10 * 60_000;

export type VerifiedLink = { ok: true; reportId: string } | { ok: false; reason: 'expired' | 'invalid' };

export type InvitationLinks = ReturnType<typeof invitationLinks>;

export function invitationLinks(deps: {
  secret: string;
  publicUrl: string;
  candidateTtlMs: number;
  resultsTtlMs: number;
  clock: Clock;
}) {
  const { publicUrl, clock } = deps;
  // A KeyObject, made once: given a string, jsonwebtoken first tries to parse it as a PEM key on
  // every sign and verify (and catches the failure), which cost more than the rest of a send.
  const secret = createSecretKey(Buffer.from(deps.secret, 'utf8'));
  const seconds = () => Math.floor(clock.now() / 1000);
  const ttl: Record<LinkAudience, number> = { candidate: deps.candidateTtlMs, results: deps.resultsTtlMs, preview: PREVIEW_TTL_MS };

  const sign = (audience: LinkAudience, reportId: string): string => {
    const iat = seconds();
    return jwt.sign({ iat, exp: iat + Math.floor(ttl[audience] / 1000) }, secret, {
      algorithm: 'HS256',
      issuer: LINK_ISSUER,
      audience,
      subject: reportId,
    });
  };

  return {
    sign,
    candidateUrl: (reportId: string) => `${publicUrl}/take?token=${sign('candidate', reportId)}`,
    resultsUrl: (reportId: string) => `${publicUrl}/results?token=${sign('results', reportId)}`,

    /** The report a link is for, or why it cannot be used. Never throws. */
    verify(audience: LinkAudience, token: unknown): VerifiedLink {
      if (typeof token !== 'string' || token.length === 0 || token.length > 2048) return { ok: false, reason: 'invalid' };
      try {
        const claims = jwt.verify(token, secret, {
          algorithms: ['HS256'],
          issuer: LINK_ISSUER,
          audience,
          clockTimestamp: seconds(),
        });
        // Every link this kit signs expires; one without `exp` was not made here.
        if (typeof claims !== 'object' || typeof claims.exp !== 'number') return { ok: false, reason: 'invalid' };
        const reportId = KitReportId.safeParse(claims.sub);
        return reportId.success ? { ok: true, reportId: reportId.data } : { ok: false, reason: 'invalid' };
      } catch (err) {
        return { ok: false, reason: err instanceof jwt.TokenExpiredError ? 'expired' : 'invalid' };
      }
    },
  };
}
