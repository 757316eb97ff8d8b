import type { PartnerKind } from '../../contract/decisions.js';

/**
 * How each kind of partner talks about what it sends, in e-mails and on pages. `done` follows the
 * thank-you page's heading ("Thank you, Ada"), so it does not thank the candidate a second time.
 * `submitted` names what the candidate's form was (answers, or a consent) where a page says when
 * it came: "Submitted", "Consent given". The e-mails' own words are in views/partner/mail/.
 */
export const KIND_WORDING: Record<PartnerKind, { noun: string; title: string; cta: string; done: string; submitted: string }> = {
  assessment: {
    noun: 'test',
    title: 'Assessment',
    cta: 'Start the test',
    done: 'Your answers were received. The recruiter will see your result.',
    submitted: 'Submitted',
  },
  background_check: {
    noun: 'background check',
    title: 'Background check',
    cta: 'Give consent',
    done: 'Your consent was received. We will now run the check and report to the recruiter.',
    submitted: 'Consent given',
  },
  reference_check: {
    noun: 'reference check',
    title: 'Reference check',
    cta: 'Give consent',
    done: 'Your consent was received. We will now contact your referees and report to the recruiter.',
    submitted: 'Consent given',
  },
};
