import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Db } from '../../lib/db.js';
import type { Logger } from '../../lib/http/logger.js';
import type { PlatformEvents } from '../events.js';
import type { MailLog } from '../mail.js';
import { validateApplication, type ValidApplication } from './application.js';
import { applicationStore, type FilePlacement } from './applications.js';
import { payloadLoader } from './payloads.js';
import type { OfferView } from './store.js';
import type { IncomingFile, UploadStorage } from './uploads.js';

export interface ApplyDeps {
  db: Db;
  clock: Clock;
  mail: MailLog;
  events: PlatformEvents;
  storage: UploadStorage;
  logger: Logger;
  /** Where the mock is reached, for the URLs in webhook payloads. */
  publicUrl: string;
}

export interface Submitted {
  candidateId: number;
  /** The careers API's view of the new candidate. */
  candidate: Record<string, unknown>;
  /** Stores the files of an application made without ?async=true; a no-op otherwise. Never throws. */
  attachPending(): Promise<void>;
}

/**
 * Applying for an offer (platform-contract.md §7.6): validate, store, tell the candidate and the webhooks.
 *
 * `?async=true` [seed: "the file upload finishes before the candidate is created"]: the files are
 * moved into storage first, then the candidate, placement, answers and file rows are created in one
 * transaction, so the 201 already shows every file as "stored"; a storage failure creates nothing.
 * Without it [kit decision, modelling the platform's background processing]: the candidate is
 * created with its files recorded as "processing", the 201 is sent, and the files are stored right
 * after (`attachPending`); a storage failure then leaves the candidate with a "failed" file.
 * Either way the whole request, files included, has been received and validated before anything is
 * stored, and every file not kept is deleted — a 422 leaves no candidate and no file behind.
 */
export function careersApplications(deps: ApplyDeps) {
  const { db, clock, mail, events, storage, logger } = deps;
  const store = applicationStore(db);
  const payloads = payloadLoader(db, deps.publicUrl);

  /** The candidate's row, its placement and every side effect, or none of them. */
  const record = db.transaction((view: OfferView, app: ValidApplication, files: FilePlacement[]) => {
    const companyId = view.company.id;
    const created = store.insert(companyId, view.offer.id, app, files, isoAt(clock.now()));
    mail.send({
      companyId,
      to: app.email,
      subject: `Your application for ${view.offer.title} at ${view.company.name}`,
      body:
        `Hi ${app.name},\n\nthank you for applying for ${view.offer.title}. ` +
        `We have received your application and will be in touch.\n\n${view.company.name}`,
      kind: 'application_confirmation',
    });
    const candidate = payloads.candidate(created.candidateId)!;
    const company = payloads.company(companyId)!;
    const offer = payloads.offer(view.offer.id)!;
    events.emit(companyId, 'new_candidate', 'career_site', { candidate, company, offers: [offer] });
    events.emit(companyId, 'candidate_assigned', 'career_site', {
      candidate,
      company,
      offer,
      placement_locations: payloads.placementLocations(created.placementId),
    });
    return created;
  });

  async function attach(companyId: number, pending: { fileId: number; file: IncomingFile }[]): Promise<void> {
    for (const { fileId, file } of pending) {
      try {
        store.fileStored(fileId, await storage.store(companyId, file));
      } catch (err) {
        // The answer has been sent: record and log the failure, never throw.
        logger.warn({ err, fileId }, 'careers: could not store an uploaded file');
        try {
          store.fileFailed(fileId);
          await storage.discard([file]);
        } catch (cleanupErr) {
          logger.warn({ err: cleanupErr, fileId }, 'careers: could not record a failed upload');
        }
      }
    }
  }

  return {
    /** Owns `files`: whatever happens, the ones that do not end up stored are deleted. */
    async submit(view: OfferView, body: unknown, files: IncomingFile[], options: { async: boolean }): Promise<Submitted> {
      const companyId = view.company.id;
      const handedOver = new Set<IncomingFile>();
      try {
        const app = validateApplication(view, body);
        const placements: FilePlacement[] = [
          ...(app.cv ? [{ file: app.cv, purpose: 'cv' as const, path: null }] : []),
          ...(app.photo ? [{ file: app.photo, purpose: 'photo' as const, path: null }] : []),
          ...app.answers.flatMap((a) => (a.file ? [{ file: a.file, purpose: 'answer' as const, path: null }] : [])),
        ];
        const stored = (): string[] => placements.flatMap((p) => (p.path === null ? [] : [p.path]));
        let created: ReturnType<typeof record>;
        try {
          if (options.async) {
            for (const p of placements) p.path = await storage.store(companyId, p.file);
          }
          created = record(view, app, placements);
        } catch (err) {
          await storage.remove(stored());
          throw err;
        }
        for (const p of created.pending) handedOver.add(p.file);
        return {
          candidateId: created.candidateId,
          candidate: store.candidateJson(created.candidateId)!,
          attachPending: () => attach(companyId, created.pending),
        };
      } finally {
        await storage.discard(files.filter((f) => !handedOver.has(f)));
      }
    },
  };
}
export type CareersApplications = ReturnType<typeof careersApplications>;
