/**
 * The careers site's numbers and formats, in one place. [seed] = a rule of the platform's interface document (restated in docs/platform-contract.md),
 * [kit decision] = chosen by this kit where the interface document says "not shown".
 */

/** [seed, platform-contract.md §7.3] The twelve kinds of screening question. */
export const QUESTION_KINDS = [
  'string',
  'text',
  'boolean',
  'single_choice',
  'multi_choice',
  'date',
  'number',
  'salary',
  'video',
  'file',
  'infobox',
  'legal',
] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

/** [seed, platform-contract.md §7.4] Which answer field carries the value of each kind; infobox takes no answer. */
export const ANSWER_FIELD: Record<QuestionKind, 'content' | 'multi_content' | 'file' | 'flag' | null> = {
  string: 'content',
  text: 'content',
  single_choice: 'content',
  date: 'content',
  number: 'content',
  salary: 'content',
  multi_choice: 'multi_content',
  file: 'file',
  video: 'file',
  boolean: 'flag',
  legal: 'flag',
  infobox: null,
};

/**
 * [seed, platform-contract.md §7.1 shows "off"; kit decision for the rest] An application form field setting: the field
 * must be filled ("required"), may be ("optional"), or is not on the form ("off": a value sent anyway
 * is ignored, not stored).
 */
export const FIELD_SETTINGS = ['required', 'optional', 'off'] as const;
export type FieldSetting = (typeof FIELD_SETTINGS)[number];

/** [kit decision] Largest single uploaded file (CV, photo, file or video answer): 413 above it. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** [kit decision] Most files one application may carry. */
export const MAX_UPLOAD_FILES = 20;
/**
 * [kit decision] A JSON application carries its files base64-encoded (4 bytes per 3), so its body
 * may be larger than one file; beyond this the body is refused with 413 before it is read.
 */
export const MAX_JSON_BODY_BYTES = 2 * MAX_UPLOAD_BYTES;

/** [kit decision] Longest answers and candidate fields, in characters. */
export const MAX_LENGTH = {
  name: 200,
  email: 320,
  phone: 50,
  coverLetter: 20_000,
  string: 1_000,
  text: 20_000,
} as const;

/** [seed, platform-contract.md §7.1] "YYYY-MM-DD HH:MM:SS UTC" — every timestamp of the careers site API. */
export function careersTimestamp(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/**
 * [kit decision, as the real careers API answers] The language an offer is written in. Its
 * `translations` (and each question's and choice's) list it too, with the original texts, beside
 * the other languages: a client picking `translations[lang]` finds every language the offer shows.
 */
export const OFFER_LANGUAGE = 'en';
