import type { Request, Router } from 'express';
import { z } from 'zod';
import { notFound, unprocessable } from '../../lib/errors.js';
import { parseOr422 } from '../../lib/http/validate.js';
import { OFFER_STATUSES, type OfferActions } from '../companies/offers.js';
import type { NewCandidate, Pipeline } from '../companies/pipeline.js';
import { MAX_IMPORT } from '../companies/routes.js';
import type { CompanyStore } from '../companies/store.js';
import { idParam, param } from '../path-params.js';
import type { PageKit } from './page-kit.js';

const formId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
/** A form's repeated field: absent, one value or several. */
const formIds = z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(formId).max(50));

const AssignForm = z.object({ offer_id: formId });
const MoveForm = z.object({ stage_id: formId });
const DisqualifyForm = z.object({ reason_id: formId });
const StatusForm = z.object({ status: z.enum(OFFER_STATUSES) });
const EditForm = z.object({ title: z.string().trim().min(1, 'is required').max(200) });
const TagsForm = z.object({ tag_ids: formIds });
const emptyToUndefined = (v: unknown) => (v === '' ? undefined : v);
const ImportForm = z.object({
  rows: z.string().max(50_000),
  offer_id: z.preprocess(emptyToUndefined, formId.optional()),
});
const EmailInForm = z.object({
  offer_id: formId,
  from_name: z.string().trim().min(1, 'is required').max(200),
  from_email: z.string().trim().max(320).pipe(z.email('must be a valid e-mail address')),
  phone: z.preprocess(emptyToUndefined, z.string().trim().max(100).optional()),
});
const ImportRow = z.object({
  name: z.string().trim().min(1, 'is required').max(200),
  email: z.string().trim().max(320).pipe(z.email('must be a valid e-mail address')),
  phone: z.string().trim().max(100).optional(),
});

/**
 * The "Import candidates" box: one candidate per line, `Name, e-mail[, phone]` or `Name <e-mail>`;
 * blank lines are skipped. A 422 names every line that is not one.
 */
export function parseImportRows(text: string): Omit<NewCandidate, 'offerIds'>[] {
  const problems: string[] = [];
  const rows: Omit<NewCandidate, 'offerIds'>[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const angle = /^\s*(.*?)\s*<([^>]*)>\s*(?:,\s*(.*))?$/.exec(line);
    const [name, email, phone] = angle ? [angle[1], angle[2], angle[3]] : line.split(',').map((s) => s.trim());
    const parsed = ImportRow.safeParse({ name: name ?? '', email: email ?? '', phone: phone || undefined });
    if (parsed.success) rows.push({ ...parsed.data, phone: parsed.data.phone ?? null });
    else {
      const what = parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join(', ');
      problems.push(`line ${i + 1} (“${line.trim().slice(0, 80)}”): ${what} — write "Name, e-mail[, phone]" or "Name <e-mail>"`);
    }
  });
  if (rows.length === 0 && problems.length === 0) problems.push('list at least one candidate, one per line');
  if (rows.length > MAX_IMPORT) problems.push(`import at most ${MAX_IMPORT} candidates at once`);
  if (problems.length) throw unprocessable(problems.join('; '), { rows: problems });
  return rows;
}

const STATUS_VERBS: Record<string, string> = { published: 'published', draft: 'unpublished', archived: 'archived' };

/**
 * The sandbox's buttons for the pipeline and offers: the candidate page moves, disqualifies,
 * requalifies, assigns and deletes; the company page imports candidates, takes in an e-mailed
 * application, and publishes, unpublishes, archives and edits offers. Each does what
 * `/api/pipeline` does, webhook event included.
 */
export function registerPipelinePages(
  router: Router,
  kit: PageKit,
  deps: { companies: CompanyStore; pipeline: Pipeline; offers: OfferActions },
): void {
  const { pipeline, offers } = deps;
  const { act, companyOf } = kit;
  const candidatePage = (req: Request) => `/companies/${param(req, 'companyId')}/candidates/${param(req, 'candidateId')}`;
  const companyPage = (req: Request) => `/companies/${param(req, 'companyId')}`;
  const id = (req: Request, name: string, what: string): number => {
    const value = idParam(req, name);
    if (value === undefined) throw notFound(`Unknown ${what}`);
    return value;
  };
  const candidateName = (companyId: number, candidateId: number) => deps.companies.candidate(companyId, candidateId)?.name ?? 'The candidate';

  router.post(
    '/companies/:companyId/candidates/import',
    act(companyPage, async (req) => {
      const company = companyOf(req);
      const form = parseOr422(ImportForm, req.body);
      const rows = parseImportRows(form.rows);
      const offerIds = form.offer_id === undefined ? [] : [form.offer_id];
      const ids = pipeline.importCandidates(company.id, rows.map((r) => ({ ...r, offerIds })));
      return { kind: 'notice', text: `${ids.length} ${ids.length === 1 ? 'candidate was' : 'candidates were'} imported.` };
    }),
  );

  router.post(
    '/companies/:companyId/candidates/email-in',
    act(companyPage, async (req) => {
      const company = companyOf(req);
      const form = parseOr422(EmailInForm, req.body);
      const offer = offers.list(company.id).find((o) => o.id === form.offer_id);
      if (!offer) throw notFound('Unknown offer');
      const candidateId = pipeline.addCandidate(
        company.id,
        { name: form.from_name, email: form.from_email, phone: form.phone ?? null, offerIds: [offer.id] },
        'email',
      );
      return {
        flash: { kind: 'notice', text: `${form.from_name} e-mailed ${offer.mailboxEmail ?? `the mailbox of ${offer.title}`} and was added.` },
        to: `/companies/${company.id}/candidates/${candidateId}`,
      };
    }),
  );

  router.post(
    '/companies/:companyId/candidates/:candidateId/placements',
    act(candidatePage, async (req) => {
      const company = companyOf(req);
      const { offer_id } = parseOr422(AssignForm, req.body);
      const placement = pipeline.assign(company.id, id(req, 'candidateId', 'candidate'), offer_id);
      return { kind: 'notice', text: `Assigned to ${placement.offerTitle}.` };
    }),
  );

  router.post(
    '/companies/:companyId/candidates/:candidateId/placements/:offerId/move',
    act(candidatePage, async (req) => {
      const company = companyOf(req);
      const { stage_id } = parseOr422(MoveForm, req.body);
      const placement = pipeline.move(company.id, id(req, 'candidateId', 'candidate'), id(req, 'offerId', 'offer'), stage_id);
      return { kind: 'notice', text: `Moved to ${placement.stage.name} for ${placement.offerTitle}.` };
    }),
  );

  router.post(
    '/companies/:companyId/candidates/:candidateId/placements/:offerId/disqualify',
    act(candidatePage, async (req) => {
      const company = companyOf(req);
      const { reason_id } = parseOr422(DisqualifyForm, req.body);
      const placement = pipeline.disqualify(company.id, id(req, 'candidateId', 'candidate'), id(req, 'offerId', 'offer'), reason_id);
      return { kind: 'notice', text: `Disqualified for ${placement.offerTitle}: ${placement.disqualifyReason?.name ?? ''}.` };
    }),
  );

  router.post(
    '/companies/:companyId/candidates/:candidateId/placements/:offerId/requalify',
    act(candidatePage, async (req) => {
      const company = companyOf(req);
      const placement = pipeline.requalify(company.id, id(req, 'candidateId', 'candidate'), id(req, 'offerId', 'offer'));
      return { kind: 'notice', text: `Requalified for ${placement.offerTitle}, in ${placement.stage.name}.` };
    }),
  );

  router.post(
    '/companies/:companyId/candidates/:candidateId/delete',
    act(candidatePage, async (req) => {
      const company = companyOf(req);
      const candidateId = id(req, 'candidateId', 'candidate');
      const name = candidateName(company.id, candidateId);
      pipeline.deleteCandidate(company.id, candidateId);
      return { flash: { kind: 'notice', text: `${name} was deleted.` }, to: `/companies/${company.id}` };
    }),
  );

  router.post(
    '/companies/:companyId/offers/:offerId/status',
    act(companyPage, async (req) => {
      const company = companyOf(req);
      const { status } = parseOr422(StatusForm, req.body);
      offers.setStatus(company.id, id(req, 'offerId', 'offer'), status);
      return { kind: 'notice', text: `The offer was ${STATUS_VERBS[status]}.` };
    }),
  );

  router.post(
    '/companies/:companyId/offers/:offerId/edit',
    act(companyPage, async (req) => {
      const company = companyOf(req);
      const { title } = parseOr422(EditForm, req.body);
      offers.edit(company.id, id(req, 'offerId', 'offer'), { title });
      return { kind: 'notice', text: `The offer is now called ${title}.` };
    }),
  );

  router.post(
    '/companies/:companyId/offers/:offerId/tags',
    act(companyPage, async (req) => {
      const company = companyOf(req);
      const { tag_ids } = parseOr422(TagsForm, req.body);
      offers.setTags(company.id, id(req, 'offerId', 'offer'), tag_ids);
      return { kind: 'notice', text: 'The offer’s tags were saved.' };
    }),
  );
}
