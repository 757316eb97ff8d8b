import { z } from 'zod';
import type { Db } from '../../lib/db.js';
import type { ValidApplication } from './application.js';
import { careersTimestamp, QUESTION_KINDS } from './decisions.js';
import { CareersTime } from './offer-json.js';
import type { CandidateRecord } from './payloads.js';
import type { IncomingFile } from './uploads.js';

export type FilePurpose = 'cv' | 'photo' | 'answer';

/** Where each of an application's files will be (or already is) stored. */
export interface FilePlacement {
  file: IncomingFile;
  purpose: FilePurpose;
  /** Set when the file was stored before the candidate was created (?async=true). */
  path: string | null;
}

interface FileRow {
  id: number;
  purpose: FilePurpose;
  original_name: string;
  content_type: string;
  size: number;
  path: string | null;
  status: (typeof FILE_STATUSES)[number];
}

interface AnswerRow {
  open_question_id: number;
  kind: string;
  content: string | null;
  option_ids: string | null;
  flag: number | null;
  file_id: number | null;
}

const FILE_STATUSES = ['processing', 'stored', 'failed'] as const;
const UploadedFileJson = z.object({
  id: z.number().int(),
  name: z.string(),
  content_type: z.string(),
  size: z.number().int(),
  status: z.enum(FILE_STATUSES),
});

/**
 * The candidate `candidateJson` writes (careers/README.md, "201 body"), for the API's document: an
 * answer carries the one field its question's kind takes.
 */
export const ApplicationCandidate = z.object({
  id: z.number().int(),
  name: z.string(),
  emails: z.array(z.string()),
  phones: z.array(z.string()),
  source: z.literal('career_site'),
  created_at: CareersTime,
  updated_at: CareersTime,
  placements: z.array(
    z.object({ id: z.number().int(), offer_id: z.number().int(), offer_slug: z.string(), location_ids: z.array(z.number().int()) }),
  ),
  open_question_answers: z.array(
    z.object({
      open_question_id: z.number().int(),
      kind: z.enum(QUESTION_KINDS),
      content: z.string().nullable().optional(),
      multi_content: z.array(z.string()).optional(),
      flag: z.boolean().optional(),
      file: UploadedFileJson.optional(),
    }),
  ),
  cover_letter: z.string().optional(),
  cv: UploadedFileJson.optional(),
  photo: UploadedFileJson.optional(),
});

/** The careers site's writes: a candidate with its placement, answers and files. */
export function applicationStore(db: Db) {
  const insertCandidate = db.prepare<[number, string, string, string | null, string, string], unknown>(
    `INSERT INTO candidates (company_id, name, email, phone, source, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'career_site', ?, ?)`,
  );
  const insertPlacement = db.prepare<[number, number, string | null, string], unknown>(
    'INSERT INTO placements (candidate_id, offer_id, cover_letter, created_at) VALUES (?, ?, ?, ?)',
  );
  const insertPlacementLocation = db.prepare<[number, number], unknown>(
    'INSERT INTO placement_locations (placement_id, location_id) VALUES (?, ?)',
  );
  const insertFile = db.prepare<[number, FilePurpose, string, string, number, string | null, string, string], unknown>(
    `INSERT INTO uploaded_files (candidate_id, purpose, original_name, content_type, size, path, status, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertAnswer = db.prepare<[number, number, string | null, string | null, number | null, number | null, string], unknown>(
    `INSERT INTO open_question_answers (placement_id, open_question_id, content, option_ids, flag, file_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const fileStored = db.prepare<[string, number], unknown>(
    "UPDATE uploaded_files SET path = ?, status = 'stored' WHERE id = ?",
  );
  const fileFailed = db.prepare<[number], unknown>("UPDATE uploaded_files SET status = 'failed' WHERE id = ?");

  const candidate = db.prepare<[number], CandidateRecord>(
    'SELECT id, name, email, phone, source, photo_thumb_url, created_at, updated_at FROM candidates WHERE id = ?',
  );
  const placements = db.prepare<[number], { id: number; offer_id: number; slug: string; cover_letter: string | null }>(
    `SELECT p.id, p.offer_id, o.slug, p.cover_letter FROM placements p JOIN offers o ON o.id = p.offer_id
      WHERE p.candidate_id = ? ORDER BY p.id`,
  );
  const placementLocationIds = db.prepare<[number], { location_id: number }>(
    'SELECT location_id FROM placement_locations WHERE placement_id = ? ORDER BY location_id',
  );
  const files = db.prepare<[number], FileRow>('SELECT * FROM uploaded_files WHERE candidate_id = ? ORDER BY id');
  const answers = db.prepare<[number], AnswerRow>(
    `SELECT a.open_question_id, q.kind, a.content, a.option_ids, a.flag, a.file_id
       FROM open_question_answers a JOIN open_questions q ON q.id = a.open_question_id
      WHERE a.placement_id = ? ORDER BY q.position, q.id`,
  );
  const optionBody = db.prepare<[number], { body: string }>('SELECT body FROM open_question_options WHERE id = ?');

  return {
    /**
     * Inserts the candidate, the placement on the offer, its locations, the file rows and the
     * answers. Call inside a transaction. Files without a stored path are recorded as 'processing'
     * and returned with their row ids, to be attached once stored.
     */
    insert(
      companyId: number,
      offerId: number,
      app: ValidApplication,
      placementsOfFiles: FilePlacement[],
      now: string,
    ): { candidateId: number; placementId: number; pending: { fileId: number; file: IncomingFile }[] } {
      const candidateId = Number(insertCandidate.run(companyId, app.name, app.email, app.phone, now, now).lastInsertRowid);
      const placementId = Number(insertPlacement.run(candidateId, offerId, app.coverLetter, now).lastInsertRowid);
      for (const locationId of app.locationIds) insertPlacementLocation.run(placementId, locationId);
      const fileIds = new Map<IncomingFile, number>();
      const pending: { fileId: number; file: IncomingFile }[] = [];
      for (const p of placementsOfFiles) {
        const status = p.path === null ? 'processing' : 'stored';
        const id = Number(
          insertFile.run(candidateId, p.purpose, p.file.name, p.file.contentType, p.file.size, p.path, status, now)
            .lastInsertRowid,
        );
        fileIds.set(p.file, id);
        if (p.path === null) pending.push({ fileId: id, file: p.file });
      }
      for (const a of app.answers) {
        insertAnswer.run(
          placementId,
          a.question.id,
          a.content,
          a.optionIds && JSON.stringify(a.optionIds),
          a.flag === null ? null : a.flag ? 1 : 0,
          a.file ? fileIds.get(a.file)! : null,
          now,
        );
      }
      return { candidateId, placementId, pending };
    },
    fileStored(fileId: number, path: string): void {
      fileStored.run(path, fileId);
    },
    fileFailed(fileId: number): void {
      fileFailed.run(fileId);
    },
    candidateRecord(candidateId: number): CandidateRecord | undefined {
      return candidate.get(candidateId);
    },
    /**
     * [kit decision] The careers API's created candidate: the webhook Candidate's fields with the
     * careers site's timestamps, plus what the application carried — placements (offer and chosen
     * locations), cover letter, files (with their storage status) and answers as they were read.
     */
    candidateJson(candidateId: number): Record<string, unknown> | undefined {
      const c = candidate.get(candidateId);
      if (!c) return undefined;
      const fileRows = files.all(candidateId);
      const fileById = new Map(fileRows.map((f) => [f.id, f]));
      const ps = placements.all(candidateId);
      const json: Record<string, unknown> = {
        id: c.id,
        name: c.name,
        emails: [c.email],
        phones: c.phone ? [c.phone] : [],
        source: c.source,
        created_at: careersTimestamp(c.created_at),
        updated_at: careersTimestamp(c.updated_at),
        placements: ps.map((p) => ({
          id: p.id,
          offer_id: p.offer_id,
          offer_slug: p.slug,
          location_ids: placementLocationIds.all(p.id).map((r) => r.location_id),
        })),
        open_question_answers: ps.flatMap((p) =>
          answers.all(p.id).map((a) => answerJson(a, a.file_id === null ? undefined : fileById.get(a.file_id))),
        ),
      };
      const coverLetter = ps.find((p) => p.cover_letter !== null)?.cover_letter;
      if (coverLetter) json.cover_letter = coverLetter;
      const cv = fileRows.find((f) => f.purpose === 'cv');
      if (cv) json.cv = fileJson(cv);
      const photo = fileRows.find((f) => f.purpose === 'photo');
      if (photo) json.photo = fileJson(photo);
      return json;
    },
  };

  function answerJson(a: AnswerRow, file: FileRow | undefined): Record<string, unknown> {
    const base = { open_question_id: a.open_question_id, kind: a.kind };
    if (a.kind === 'multi_choice') {
      const ids = JSON.parse(a.option_ids ?? '[]') as number[];
      return { ...base, multi_content: ids.map((id) => optionBody.get(id)?.body ?? String(id)) };
    }
    if (a.flag !== null) return { ...base, flag: a.flag === 1 };
    if (file) return { ...base, file: fileJson(file) };
    return { ...base, content: a.content };
  }
}
export type ApplicationStore = ReturnType<typeof applicationStore>;

function fileJson(f: FileRow): Record<string, unknown> {
  return { id: f.id, name: f.original_name, content_type: f.content_type, size: f.size, status: f.status };
}
