import type { FieldSetting, QuestionKind } from './decisions.js';
import type { LocationRow, OfferView, Question } from './store.js';

/**
 * What the careers page templates show, computed here so the templates stay plain. Strings marked
 * `Html` are the seeded, trusted HTML of offers and of infobox/legal questions (rendered raw);
 * everything else — above all anything a visitor typed — is escaped by the templates.
 */

type Translations = Record<string, Record<string, string | undefined> | undefined>;

/** The language to show: one the offer is translated into, else the original. */
function translator(view: OfferView, lang: string | undefined) {
  const all = JSON.parse(view.offer.translations) as Translations;
  const t = lang === undefined ? undefined : all[lang];
  return {
    languages: Object.keys(all),
    current: t ? lang : undefined,
    pick: (field: string, original: string | null): string | null => (t?.[field] ? t[field]! : original),
    body: (translations: string, original: string): string => {
      if (!t || lang === undefined) return original;
      return (JSON.parse(translations) as Translations)[lang]?.body || original;
    },
  };
}

export function offerSummary(view: OfferView, base: string) {
  const { offer } = view;
  return {
    title: offer.title,
    href: `${base}/offers/${encodeURIComponent(offer.slug)}`,
    department: view.department?.name,
    tags: view.tags.map((t) => t.name),
    locations: view.locations.map((l) => l.name),
    arrangement: arrangement(view),
    salary: salaryText(view),
    talentPool: offer.kind === 'talent_pool',
  };
}

export interface FormState {
  /** The submitted application (nested, see form-fields.ts), to fill the form in again. */
  values?: Record<string, unknown>;
  errors?: Record<string, string[]>;
  message?: string;
}

export function offerPage(view: OfferView, base: string, lang: string | undefined, state: FormState = {}) {
  const { offer } = view;
  const tr = translator(view, lang);
  const offerHref = `${base}/offers/${encodeURIComponent(offer.slug)}`;
  const candidate = asRecord(state.values?.candidate);
  const errors = state.errors ?? {};
  const answers = new Map<number, Record<string, unknown>>();
  for (const a of Array.isArray(candidate.open_question_answers_attributes) ? candidate.open_question_answers_attributes : []) {
    const answer = asRecord(a);
    answers.set(Number(answer.open_question_id), answer);
  }
  const chosenLocations = new Set(asList(candidate.location_ids).map(String));

  return {
    base,
    lang: tr.current,
    languages: tr.languages.map((code) => ({ code, href: `${offerHref}?lang=${encodeURIComponent(code)}`, current: code === tr.current })),
    originalHref: offerHref,
    offer: {
      title: tr.pick('title', offer.title)!,
      department: view.department?.name,
      tags: view.tags.map((t) => t.name),
      locations: view.locations.map(locationText),
      arrangement: arrangement(view),
      salary: salaryText(view),
      hours: hoursText(view),
      talentPool: offer.kind === 'talent_pool',
      highlightHtml: tr.pick('highlight', offer.highlight),
      descriptionHtml: tr.pick('description', offer.description),
      requirementsHtml: tr.pick('requirements', offer.requirements),
    },
    form: {
      // The page waits for the files to be stored, so the confirmation can show them.
      action: `${offerHref}/apply?async=true${tr.current ? `&lang=${encodeURIComponent(tr.current)}` : ''}`,
      message: state.message,
      errors: {
        name: errors['candidate.name'] ?? [],
        email: errors['candidate.email'] ?? [],
        phone: errors['candidate.phone'] ?? [],
        cover_letter: errors['candidate.cover_letter'] ?? [],
        cv: errors['candidate.cv'] ?? [],
        photo: errors['candidate.photo'] ?? [],
        location_ids: errors['candidate.location_ids'] ?? [],
      },
      values: {
        name: text(candidate.name),
        email: text(candidate.email),
        phone: text(candidate.phone),
        cover_letter: text(candidate.cover_letter),
      },
      settings: {
        phone: offer.options_phone,
        cover_letter: offer.options_cover_letter,
        cv: offer.options_cv,
        photo: offer.options_photo,
      } satisfies Record<string, FieldSetting>,
      locationQuestion:
        view.locations.length > 1 && offer.location_question_visible !== 0
          ? {
              text: tr.pick('locations_question', offer.locations_question) || 'Where would you like to work?',
              required: offer.locations_question_required === 1,
              options: view.locations.map((l) => ({ id: l.id, name: l.name, checked: chosenLocations.has(String(l.id)) })),
            }
          : undefined,
      questions: view.questions.map((q, index) =>
        formQuestion(q, index, tr, answers.get(q.id) ?? {}, errors[`open_questions.${q.id}`] ?? []),
      ),
    },
  };
}

function formQuestion(
  q: Question,
  index: number,
  tr: ReturnType<typeof translator>,
  answer: Record<string, unknown>,
  errors: string[],
) {
  const body = tr.body(q.translations, q.body);
  const options = JSON.parse(q.options) as { currency?: string; length?: number };
  const chosen = new Set(
    (q.kind === 'multi_choice' ? asList(answer.multi_content) : [answer.content]).map((v) => text(v)),
  );
  const kind: QuestionKind = q.kind;
  return {
    id: q.id,
    kind,
    required: q.required === 1,
    // Only infobox and legal bodies may be HTML (platform-contract.md §7.3); both are seeded, trusted text.
    bodyHtml: kind === 'infobox' || kind === 'legal' ? body : undefined,
    bodyText: kind === 'infobox' || kind === 'legal' ? undefined : body,
    name: `candidate[open_question_answers_attributes][${index}]`,
    inputId: `q${q.id}`,
    value: text(answer.content),
    flag: text(answer.flag),
    currency: options.currency,
    videoLength: options.length,
    choices: q.choices.map((c) => ({
      id: c.id,
      body: tr.body(c.translations, c.body),
      checked: chosen.has(String(c.id)) || chosen.has(c.body),
    })),
    errors,
  };
}

function arrangement(view: OfferView): string[] {
  const o = view.offer;
  return [o.remote === 1 && 'Remote', o.hybrid === 1 && 'Hybrid', o.on_site === 1 && 'On site'].filter(
    (s): s is string => typeof s === 'string',
  );
}

function salaryText(view: OfferView): string | undefined {
  const o = view.offer;
  if (o.salary_min === null && o.salary_max === null) return undefined;
  const range = [o.salary_min, o.salary_max].filter((v) => v !== null).join('–');
  return [o.salary_currency, range, o.salary_period && `per ${o.salary_period}`].filter(Boolean).join(' ');
}

function hoursText(view: OfferView): string | undefined {
  const o = view.offer;
  const min = o.min_hours_per_week ?? o.min_hours;
  const max = o.max_hours_per_week ?? o.max_hours;
  if (min === null && max === null) return undefined;
  return `${[min, max].filter((v) => v !== null).join('–')} hours a week`;
}

function locationText(l: LocationRow): string {
  const address = [l.street, [l.postal_code, l.city].filter(Boolean).join(' '), l.country].filter(Boolean).join(', ');
  return address ? `${l.name} — ${address}` : l.name;
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : v === undefined || v === null ? [] : [v];
}

/** A submitted value to show again in a form field; files and objects are not shown. */
function text(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}
