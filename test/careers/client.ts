import type { Express } from 'express';
import request from 'supertest';

/**
 * A careers-site API client for the tests: one description of an application, sent as JSON, as
 * multipart/form-data with raw bracketed names, or with the brackets escaped as %5B/%5D.
 */

export interface FileSpec {
  name: string;
  type: string;
  data: Buffer;
}

export interface AnswerSpec {
  open_question_id: number | string;
  content?: unknown;
  multi_content?: unknown[];
  flag?: unknown;
  /** A file, or a plain value where a file belongs (to test that it is refused). */
  file?: FileSpec | string;
}

export interface ApplicationSpec {
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  cover_letter?: string;
  cv?: FileSpec;
  photo?: FileSpec;
  location_ids?: number[];
  answers?: AnswerSpec[];
}

export const ENCODINGS = ['json', 'multipart', 'multipart-escaped'] as const;
export type Encoding = (typeof ENCODINGS)[number];

export const file = (name: string, type: string, text = `contents of ${name}`): FileSpec => ({
  name,
  type,
  data: Buffer.from(text),
});

export function apply(app: Express, encoding: Encoding, path: string, spec: ApplicationSpec) {
  const req = request(app).post(path);
  if (encoding === 'json') return req.send({ candidate: jsonCandidate(spec) });

  const key = encoding === 'multipart-escaped' ? (n: string) => n.replaceAll('[', '%5B').replaceAll(']', '%5D') : (n: string) => n;
  // Multipart cannot say null: an empty string is how a form sends "empty".
  const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  for (const field of ['name', 'email', 'phone', 'cover_letter'] as const) {
    if (spec[field] !== undefined) req.field(key(`candidate[${field}]`), text(spec[field]));
  }
  for (const field of ['cv', 'photo'] as const) {
    const f = spec[field];
    if (f) req.attach(key(`candidate[${field}]`), f.data, { filename: f.name, contentType: f.type });
  }
  for (const id of spec.location_ids ?? []) req.field(key('candidate[location_ids][]'), String(id));
  (spec.answers ?? []).forEach((a, i) => {
    const prefix = `candidate[open_question_answers_attributes][${i}]`;
    req.field(key(`${prefix}[open_question_id]`), String(a.open_question_id));
    if (a.content !== undefined) req.field(key(`${prefix}[content]`), text(a.content));
    if (a.flag !== undefined) req.field(key(`${prefix}[flag]`), text(a.flag));
    a.multi_content?.forEach((v, j) => {
      req.field(key(`${prefix}[multi_content][${j}]`), text(v));
    });
    if (typeof a.file === 'string') req.field(key(`${prefix}[file]`), a.file);
    else if (a.file) req.attach(key(`${prefix}[file]`), a.file.data, { filename: a.file.name, contentType: a.file.type });
  });
  return req;
}

/** The kit's JSON file object: {"name", "content_type", "data": base64}. */
export const jsonFile = (f: FileSpec) => ({ name: f.name, content_type: f.type, data: f.data.toString('base64') });

function jsonCandidate(spec: ApplicationSpec): Record<string, unknown> {
  const { answers, cv, photo, ...rest } = spec;
  return {
    ...rest,
    ...(cv ? { cv: jsonFile(cv) } : {}),
    ...(photo ? { photo: jsonFile(photo) } : {}),
    ...(answers
      ? {
          open_question_answers_attributes: answers.map((a) => ({
            ...a,
            ...(a.file && typeof a.file !== 'string' ? { file: jsonFile(a.file) } : {}),
          })),
        }
      : {}),
  };
}

/** The application's answers with the one for `answer.open_question_id` replaced (or added). */
export function withAnswer(spec: ApplicationSpec, answer: AnswerSpec): ApplicationSpec {
  const others = (spec.answers ?? []).filter((a) => String(a.open_question_id) !== String(answer.open_question_id));
  return { ...spec, answers: [...others, answer] };
}
