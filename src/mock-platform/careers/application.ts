import { z } from 'zod';
import { emailAddress, IntegerId } from '../../contract/schemas.js';
import { payloadTooLarge, unprocessable } from '../../lib/errors.js';
import { parseOr422 } from '../../lib/http/validate.js';
import { ANSWER_FIELD, MAX_LENGTH, MAX_UPLOAD_BYTES, type FieldSetting, type QuestionKind } from './decisions.js';
import type { OfferView, OptionRow, Question } from './store.js';
import { IncomingFile } from './uploads.js';

/** An answer that passed every rule, shaped like the row that stores it. */
export interface ValidAnswer {
  question: Question;
  /** string, text, date, number, salary; single_choice: the chosen option's body. */
  content: string | null;
  /** single_choice and multi_choice. */
  optionIds: number[] | null;
  flag: boolean | null;
  file: IncomingFile | null;
}

export interface ValidApplication {
  name: string;
  email: string;
  phone: string | null;
  coverLetter: string | null;
  cv: IncomingFile | null;
  photo: IncomingFile | null;
  /** The offer locations the assignment is attached to. */
  locationIds: number[];
  answers: ValidAnswer[];
}

const isBlank = (v: unknown): boolean => v === null || v === undefined || (typeof v === 'string' && v.trim() === '');
/** "" and null are "sent empty" (platform-contract.md §7.6); undefined is "not sent". Both make a field missing here. */
const blankToUndefined = (v: unknown) => (isBlank(v) ? undefined : v);

/**
 * A file in a JSON application: JSON cannot carry an upload, so the kit decides the file travels
 * base64-encoded as `{"name": "cv.pdf", "content_type": "application/pdf", "data": "<base64>"}`.
 */
const JsonFile = z.object({
  name: z.string().trim().min(1, 'is required').max(255),
  content_type: z.string().trim().max(255).optional(),
  data: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64'),
});
const FileValue = z.union([z.instanceof(IncomingFile), JsonFile], {
  error: 'must be a file upload (or, in JSON, {"name", "content_type", "data": base64})',
});

const optionalText = (max: number) =>
  z.preprocess(
    blankToUndefined,
    z
      .union([z.string(), z.number()], { error: 'must be text' })
      .transform(String)
      .pipe(z.string().trim().max(max, `must be at most ${max} characters`))
      .optional(),
  );

const Answer = z.object({
  open_question_id: z.preprocess(blankToUndefined, IntegerId),
  content: z.unknown().optional(),
  multi_content: z.unknown().optional(),
  file: z.unknown().optional(),
  flag: z.unknown().optional(),
});
type Answer = z.infer<typeof Answer>;

/** Each candidate field on its own, so that every problem is reported in one answer. */
const CandidateFields = {
  // Blanks never reach the string schemas (they read as "not sent"); their minimum says, in the
  // API's document, that a blank name is refused.
  name: z.preprocess(blankToUndefined, z.string().trim().min(1).max(MAX_LENGTH.name)),
  email: z.preprocess(blankToUndefined, emailAddress(MAX_LENGTH.email)),
  phone: optionalText(MAX_LENGTH.phone),
  cover_letter: optionalText(MAX_LENGTH.coverLetter),
  cv: z.preprocess(blankToUndefined, FileValue.optional()),
  photo: z.preprocess(blankToUndefined, FileValue.optional()),
  /** [kit decision] The answer to the offer's location question: ids of the offer's locations. */
  location_ids: z.preprocess(
    (v) => (isBlank(v) ? undefined : Array.isArray(v) ? v.filter((x) => !isBlank(x)) : [v]),
    z.array(IntegerId).max(50).optional(),
  ),
  open_question_answers_attributes: z.preprocess(blankToUndefined, z.array(Answer).max(100).optional()),
};

const Envelope = z.object({ candidate: z.record(z.string(), z.unknown()) });

/** The candidate fields the offer's form settings govern (platform-contract.md §7.1 options_*). */
const GOVERNED_FIELDS = {
  phone: 'options_phone',
  cover_letter: 'options_cover_letter',
  cv: 'options_cv',
  photo: 'options_photo',
} as const;

/**
 * Checks an application (the nested object of `nestFields`) against the offer: name and email always,
 * phone/cv/cover letter/photo per the offer's settings, each answer per its question's kind. All
 * problems are reported at once in a 422 whose `errors` names each field (`candidate.email`) and
 * each question (`open_questions.<id>`). A too-large JSON file is a 413.
 */
export function validateApplication(view: OfferView, body: unknown): ValidApplication {
  const { candidate } = parseOr422(Envelope, body);
  const errors: Record<string, string[]> = {};
  const add = (key: string, message: string) => (errors[key] ??= []).push(message);
  const field = <S extends z.ZodType>(name: keyof typeof CandidateFields, schema: S): z.output<S> | undefined => {
    const result = schema.safeParse(candidate[name], {
      error: (issue) => (issue.input === undefined ? 'is required' : undefined),
    });
    if (result.success) return result.data;
    for (const issue of result.error.issues) add(['candidate', name, ...issue.path].join('.'), issue.message);
    return undefined;
  };

  const name = field('name', CandidateFields.name);
  const email = field('email', CandidateFields.email);
  // "off": the field is not on the form, so a value sent anyway is ignored (and not even checked).
  const keep = <S extends z.ZodType>(name: keyof typeof GOVERNED_FIELDS, schema: S): NonNullable<z.output<S>> | null => {
    const setting: FieldSetting = view.offer[GOVERNED_FIELDS[name]];
    if (setting === 'off') return null;
    const problems = Object.keys(errors).length;
    const value = field(name, schema);
    const invalid = Object.keys(errors).length > problems;
    if (value === undefined && !invalid && setting === 'required') add(`candidate.${name}`, 'is required');
    return value ?? null;
  };
  const phone = keep('phone', CandidateFields.phone);
  const coverLetter = keep('cover_letter', CandidateFields.cover_letter);
  const cv = keep('cv', CandidateFields.cv);
  const photo = keep('photo', CandidateFields.photo);

  const locationIds = chooseLocations(view, field('location_ids', CandidateFields.location_ids), add);
  const answers = checkAnswers(
    view.questions,
    field('open_question_answers_attributes', CandidateFields.open_question_answers_attributes) ?? [],
    add,
  );

  if (Object.keys(errors).length > 0) throw unprocessable(sentence(errors, view.questions), errors);
  return {
    name: name!,
    email: email!,
    phone,
    coverLetter,
    cv: cv && toIncoming(cv, 'candidate.cv'),
    photo: photo && toIncoming(photo, 'candidate.photo'),
    locationIds,
    answers,
  };
}

/**
 * [kit decision] Without `location_ids`, an offer with one location attaches the candidate to it and
 * one with several attaches none — unless its location question is required, which makes a choice
 * mandatory.
 */
function chooseLocations(view: OfferView, ids: number[] | undefined, add: (k: string, m: string) => void): number[] {
  const offered = new Set(view.locations.map((l) => l.id));
  if (ids === undefined || ids.length === 0) {
    if (view.offer.locations_question_required === 1 && offered.size > 1) add('candidate.location_ids', 'is required');
    return offered.size === 1 ? [...offered] : [];
  }
  const unknown = ids.filter((id) => !offered.has(id));
  if (unknown.length > 0) add('candidate.location_ids', `${unknown.join(', ')} is not a location of this offer`);
  return [...new Set(ids)];
}

function checkAnswers(questions: Question[], answers: Answer[], add: (k: string, m: string) => void): ValidAnswer[] {
  const byId = new Map(questions.map((q) => [q.id, q]));
  const seen = new Set<number>();
  const valid: ValidAnswer[] = [];
  for (const answer of answers) {
    const key = `open_questions.${answer.open_question_id}`;
    const question = byId.get(answer.open_question_id);
    if (!question) {
      add(key, 'is not a question of this offer');
      continue;
    }
    if (seen.has(question.id)) {
      add(key, 'is answered more than once');
      continue;
    }
    seen.add(question.id);
    const field = ANSWER_FIELD[question.kind];
    const sent = (['content', 'multi_content', 'file', 'flag'] as const).filter((f) => answer[f] !== undefined);
    if (field === null) {
      if (sent.some((f) => !isBlank(answer[f]))) add(key, 'is an information box and takes no answer');
      continue;
    }
    const raw = answer[field];
    if (raw === undefined && sent.length > 0) {
      add(key, `must be answered with ${field} (not ${sent.join(', ')})`);
      continue;
    }
    if (isBlank(raw) || (Array.isArray(raw) && raw.every(isBlank))) {
      if (question.required === 1) add(key, 'is required');
      continue;
    }
    const result = parseAnswer(question, raw);
    if (typeof result === 'string') add(key, result);
    else valid.push(result);
  }
  return valid;
}

const text = (max: number) =>
  z
    .union([z.string(), z.number()], { error: 'must be text' })
    .transform(String)
    .pipe(z.string().trim().max(max, `must be at most ${max} characters`));

const numeric = (pattern: RegExp, message: string) =>
  z
    .union([z.number().finite(), z.string()], { error: message })
    .transform((v) => String(v).trim())
    .pipe(z.string().regex(pattern, message));

const choiceRef = z.union([z.string(), z.number()], { error: 'must name an option' }).transform((v) => String(v).trim());

/** One schema per kind for the answer's value; choices and files are then resolved below. */
const VALUE_SCHEMAS = {
  string: text(MAX_LENGTH.string),
  text: text(MAX_LENGTH.text),
  date: z
    .string({ error: 'must be a date as YYYY-MM-DD' })
    .trim()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
    .refine(isCalendarDate, 'is not a date in the calendar'),
  number: numeric(/^-?\d+(\.\d+)?$/, 'must be a number'),
  salary: numeric(/^\d+(\.\d+)?$/, 'must be a number of zero or more'),
  boolean: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0'])], { error: 'must be true or false' })
    .transform((v) => v === true || v === 'true' || v === '1'),
  single_choice: choiceRef,
  multi_choice: z.union([z.array(choiceRef), choiceRef]).transform((v) => (Array.isArray(v) ? v : [v])),
  file: FileValue,
} satisfies Partial<Record<QuestionKind, z.ZodType>>;

/** Returns the valid answer, or the message saying what is wrong with it. */
function parseAnswer(question: Question, raw: unknown): ValidAnswer | string {
  const answer: ValidAnswer = { question, content: null, optionIds: null, flag: null, file: null };
  const kind = question.kind;
  switch (kind) {
    case 'string':
    case 'text':
    case 'date':
    case 'number':
    case 'salary': {
      const r = VALUE_SCHEMAS[kind].safeParse(raw);
      if (!r.success) return r.error.issues[0]!.message;
      return { ...answer, content: r.data };
    }
    case 'boolean':
    case 'legal': {
      const r = VALUE_SCHEMAS.boolean.safeParse(raw);
      if (!r.success) return r.error.issues[0]!.message;
      // A required legal question is a consent: only "true" answers it.
      if (kind === 'legal' && question.required === 1 && !r.data) return 'must be accepted';
      return { ...answer, flag: r.data };
    }
    case 'single_choice': {
      const r = VALUE_SCHEMAS.single_choice.safeParse(raw);
      if (!r.success) return r.error.issues[0]!.message;
      const option = findOption(question, r.data);
      if (!option) return notAnOption(question, r.data);
      return { ...answer, content: option.body, optionIds: [option.id] };
    }
    case 'multi_choice': {
      const r = VALUE_SCHEMAS.multi_choice.safeParse(raw);
      if (!r.success) return 'must be a list of options';
      const ids = new Set<number>();
      for (const ref of r.data.filter((v) => v !== '')) {
        const option = findOption(question, ref);
        if (!option) return notAnOption(question, ref);
        ids.add(option.id);
      }
      return { ...answer, optionIds: [...ids] };
    }
    case 'file':
    case 'video': {
      const r = VALUE_SCHEMAS.file.safeParse(raw);
      if (!r.success) return r.error.issues[0]!.message;
      return { ...answer, file: toIncoming(r.data, `open_questions.${question.id}`) };
    }
    case 'infobox':
      return 'is an information box and takes no answer';
  }
}

/**
 * [kit decision] A choice is named by its option's id (number or digits) or by its body, exactly as
 * listed; an id is tried first.
 */
function findOption(question: Question, ref: string): OptionRow | undefined {
  if (/^\d+$/.test(ref)) {
    const byId = question.choices.find((c) => c.id === Number(ref));
    if (byId) return byId;
  }
  return question.choices.find((c) => c.body === ref);
}

function notAnOption(question: Question, ref: string): string {
  return `"${ref}" is not one of the options (${question.choices.map((c) => c.body).join(', ')})`;
}

function toIncoming(value: z.infer<typeof FileValue>, field: string): IncomingFile {
  if (value instanceof IncomingFile) return value;
  // base64 carries 3 bytes per 4 characters: refuse an oversized file before decoding it.
  if (Math.floor((value.data.length * 3) / 4) > MAX_UPLOAD_BYTES + 2) throw tooLarge(field);
  const data = Buffer.from(value.data, 'base64');
  if (data.length > MAX_UPLOAD_BYTES) throw tooLarge(field);
  return new IncomingFile(value.name, value.content_type ?? 'application/octet-stream', data.length, { data });
}

const tooLarge = (field: string) =>
  payloadTooLarge(`File ${field} is larger than ${MAX_UPLOAD_BYTES / (1024 * 1024)} MB`);

function isCalendarDate(s: string): boolean {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/** "email must be a valid e-mail address; question 12 ("Salary expectation") is required" */
function sentence(errors: Record<string, string[]>, questions: Question[]): string {
  return Object.entries(errors)
    .map(([key, messages]) => {
      const id = /^open_questions\.(\d+)$/.exec(key)?.[1];
      const question = id === undefined ? undefined : questions.find((q) => q.id === Number(id));
      const label = question
        ? `question ${question.id} ("${plainText(question.body)}")`
        : id !== undefined
          ? `question ${id}`
          : key.replace(/^candidate\./, '');
      return `${label} ${messages[0]}`;
    })
    .join('; ');
}

function plainText(html: string): string {
  const text = html.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ').trim();
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** A blank value (null, "" or spaces), which counts as not sent, beside what a field takes when sent. */
const orBlank = <S extends z.ZodType>(schema: S, description: string) =>
  z.union([schema, z.null(), z.string().regex(/^\s*$/)]).optional().meta({ description });

/**
 * An application as the API's document shows it: the schemas above, field by field, with what
 * they leave to the offer spelled out — a file in JSON is `JsonFile` (multipart sends the file
 * itself), and an answer's value goes in the one field its question's kind takes
 * (platform-contract.md §7.4), checked against the question.
 */
export const ApplicationBody = z.object({
  candidate: z.object({
    ...CandidateFields,
    phone: CandidateFields.phone.meta({ description: 'Required or ignored as the offer\'s `options_phone` says; blank is "not sent".' }),
    cover_letter: CandidateFields.cover_letter.meta({ description: 'As the offer\'s `options_cover_letter` says; blank is "not sent".' }),
    cv: orBlank(JsonFile, 'As the offer\'s `options_cv` says. In multipart/form-data, the file itself.'),
    photo: orBlank(JsonFile, 'As the offer\'s `options_photo` says. In multipart/form-data, the file itself.'),
    location_ids: CandidateFields.location_ids.meta({
      description: 'The answer to the location question: ids of the offer\'s `locations`.',
    }),
    open_question_answers_attributes: z
      .array(
        Answer.extend({
          content: orBlank(
            z.union([z.string(), z.number()]),
            'string, text, date (YYYY-MM-DD), number, salary and single_choice (an option\'s id or exact body).',
          ),
          multi_content: orBlank(VALUE_SCHEMAS.multi_choice, 'multi_choice: options\' ids or exact bodies (one, or a list).'),
          flag: orBlank(VALUE_SCHEMAS.boolean, 'boolean and legal (a required legal question must be true).'),
          file: orBlank(JsonFile, 'file and video. In multipart/form-data, the file itself.'),
        }),
      )
      .max(100)
      .optional()
      .meta({ description: 'One answer per question; each question\'s kind, required flag and options are in the offer.' }),
  }),
});
