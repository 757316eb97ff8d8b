import { z } from 'zod';
import { FIELD_SETTINGS, OFFER_LANGUAGE, QUESTION_KINDS, careersTimestamp } from './decisions.js';
import type { LocationRow, OfferView, Question } from './store.js';

/** Where the mock serves a company's careers site, for the URLs an offer carries. */
export function careersUrls(publicUrl: string, subdomain: string) {
  const site = `${publicUrl.replace(/\/+$/, '')}/careers/${encodeURIComponent(subdomain)}`;
  return {
    site,
    offer: (slug: string) => `${site}/offers/${encodeURIComponent(slug)}`,
    apply: (slug: string) => `${site}/offers/${encodeURIComponent(slug)}/apply`,
  };
}

/** platform-contract.md §7.1: every timestamp of the careers site API reads "YYYY-MM-DD HH:MM:SS UTC". */
export const CareersTime = z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
/** Texts by language: the offer's own (`en`) and each translation. */
const Translations = <T extends z.ZodType>(texts: T) => z.record(z.string(), texts);

export const OfferLocation = z.object({
  id: z.number().int(),
  name: z.string().optional(),
  street: z.string().optional(),
  city: z.string().optional(),
  postal_code: z.string().optional(),
  state: z.string().optional(),
  state_code: z.string().optional(),
  country: z.string().optional(),
  country_code: z.string().optional(),
  note: z.string().optional(),
});

export const OfferQuestion = z.object({
  id: z.number().int(),
  position: z.number().int(),
  kind: z.enum(QUESTION_KINDS),
  required: z.boolean(),
  body: z.string(),
  options: z.record(z.string(), z.unknown()),
  translations: Translations(z.object({ body: z.string() })),
  open_question_options: z.array(
    z.object({
      id: z.number().int(),
      position: z.number().int(),
      body: z.string(),
      translations: Translations(z.object({ body: z.string() })),
    }),
  ),
});

/**
 * The Offer JSON `offerJson` writes, for the API's document: the keys on every offer first, then
 * those left out when the offer lacks them (careers/README.md, "Offer keys").
 */
export const Offer = z.object({
  id: z.number().int(),
  guid: z.string(),
  slug: z.string(),
  position: z.number().int().nullable(),
  company_name: z.string(),
  title: z.string(),
  department: z.string().nullable(),
  status: z.string(),
  careers_url: z.string(),
  careers_apply_url: z.string(),
  mailbox_email: z.string().nullable(),
  created_at: CareersTime,
  published_at: CareersTime.nullable(),
  updated_at: CareersTime,
  close_at: CareersTime.nullable(),
  description: z.string().nullable(),
  requirements: z.string().nullable(),
  location: z.string(),
  city: z.string(),
  country: z.string(),
  country_code: z.string(),
  state_code: z.string(),
  postal_code: z.string(),
  remote: z.boolean().nullable(),
  on_site: z.boolean().nullable(),
  hybrid: z.boolean().nullable(),
  employment_type_code: z.string().nullable(),
  category_code: z.string().nullable(),
  experience_code: z.string().nullable(),
  education_code: z.string().nullable(),
  min_hours: z.number().int().nullable(),
  max_hours: z.number().int().nullable(),
  tags: z.array(z.string()),
  translations: Translations(z.record(z.string(), z.string())),
  open_questions: z.array(OfferQuestion),
  options_cover_letter: z.enum(FIELD_SETTINGS),
  options_photo: z.enum(FIELD_SETTINGS),
  options_cv: z.enum(FIELD_SETTINGS),
  options_phone: z.enum(FIELD_SETTINGS),
  locations: z.array(OfferLocation).optional(),
  highlight: z.string().optional(),
  locations_question_required: z.boolean().optional(),
  locations_question: z.string().optional(),
  locations_question_type: z.string().optional(),
  location_question_visible: z.boolean().optional(),
  min_hours_per_week: z.string().optional(),
  max_hours_per_week: z.string().optional(),
  sharing_title: z.string().optional(),
  sharing_description: z.string().optional(),
  sharing_image: z.string().optional(),
  cover_image: z.object({ url: z.string() }).optional(),
  salary: z
    .object({ min: z.string().optional(), max: z.string().optional(), period: z.string().optional(), currency: z.string().optional() })
    .optional(),
});

/**
 * An offer as the careers site API shows it (platform-contract.md §7.1, and the real careers API's public offers
 * reference for the keys its clients rely on — see careers/README.md, "Offer JSON").
 *
 * Two kinds of key:
 * - always there, `null` where the offer has no value: the keys the real API always returns
 *   (`department`, `remote`/`on_site`/`hybrid`, `min_hours`/`max_hours`, the four codes,
 *   timestamps, texts, …), plus `position` and the flat location fields (`location`, `city`,
 *   `country`, `country_code`, `state_code`, `postal_code`), which are strings, `""` when unknown;
 * - left out when the offer lacks them, as the interface document allows ("an offer may lack the location and
 *   salary fields"): `locations`, `salary`, `cover_image`, the sharing texts, the location question
 *   and the weekly hours.
 */
export function offerJson(view: OfferView, publicUrl: string): Record<string, unknown> {
  const { offer, company, department, tags, locations, questions } = view;
  const urls = careersUrls(publicUrl, company.subdomain);
  const json: Record<string, unknown> = {
    id: offer.id,
    guid: offer.guid,
    slug: offer.slug,
    position: view.position,
    company_name: company.name,
    title: offer.title,
    department: department?.name ?? null,
    status: offer.status,
    careers_url: urls.offer(offer.slug),
    careers_apply_url: urls.apply(offer.slug),
    mailbox_email: offer.mailbox_email,
    created_at: careersTimestamp(offer.created_at),
    published_at: offer.published_at === null ? null : careersTimestamp(offer.published_at),
    updated_at: careersTimestamp(offer.updated_at),
    close_at: offer.close_at === null ? null : careersTimestamp(offer.close_at),
    description: offer.description,
    requirements: offer.requirements,
    ...flatLocation(locations[0], flag(offer.remote) === true),
    remote: flag(offer.remote),
    on_site: flag(offer.on_site),
    hybrid: flag(offer.hybrid),
    employment_type_code: offer.employment_type_code,
    category_code: offer.category_code,
    experience_code: offer.experience_code,
    education_code: offer.education_code,
    min_hours: offer.min_hours,
    max_hours: offer.max_hours,
    tags: tags.map((t) => t.name),
    translations: {
      [OFFER_LANGUAGE]: {
        title: offer.title,
        description: offer.description ?? '',
        highlight: offer.highlight ?? '',
        requirements: offer.requirements ?? '',
        sharing_image: offer.sharing_image ?? '',
        sharing_title: offer.sharing_title ?? '',
        sharing_description: offer.sharing_description ?? '',
        locations_question: offer.locations_question ?? '',
      },
      ...(JSON.parse(offer.translations) as object),
    },
    open_questions: questions.map(questionJson),
    options_cover_letter: offer.options_cover_letter,
    options_photo: offer.options_photo,
    options_cv: offer.options_cv,
    options_phone: offer.options_phone,
  };
  const optional: Record<string, unknown> = {
    locations: locations.length > 0 ? locations.map(locationJson) : null,
    highlight: offer.highlight,
    locations_question_required: flag(offer.locations_question_required),
    locations_question: offer.locations_question,
    locations_question_type: offer.locations_question_type,
    location_question_visible: flag(offer.location_question_visible),
    min_hours_per_week: offer.min_hours_per_week,
    max_hours_per_week: offer.max_hours_per_week,
    sharing_title: offer.sharing_title,
    sharing_description: offer.sharing_description,
    sharing_image: offer.sharing_image,
    cover_image: offer.cover_image_url === null ? null : { url: offer.cover_image_url },
  };
  if (offer.salary_min !== null || offer.salary_max !== null) {
    optional.salary = withoutMissing({
      min: offer.salary_min,
      max: offer.salary_max,
      period: offer.salary_period,
      currency: offer.salary_currency,
    });
  }
  return { ...json, ...withoutMissing(optional) };
}

/**
 * [real careers API] The flat location keys: the offer's first location as "City, Country" and its
 * parts; "Remote" for a remote offer without a location; empty strings when nothing is known.
 */
export function flatLocation(first: LocationRow | undefined, remote: boolean) {
  const place = first ? [first.city, first.country].filter((p): p is string => !!p).join(', ') || first.name : '';
  return {
    location: place || (remote ? 'Remote' : ''),
    city: first?.city ?? '',
    country: first?.country ?? '',
    country_code: first?.country_code ?? '',
    state_code: first?.state_code ?? '',
    postal_code: first?.postal_code ?? '',
  };
}

export function locationJson(l: LocationRow): Record<string, unknown> {
  return {
    id: l.id,
    ...withoutMissing({
      name: l.name,
      street: l.street,
      city: l.city,
      postal_code: l.postal_code,
      state: l.state,
      state_code: l.state_code,
      country: l.country,
      country_code: l.country_code,
      note: l.note,
    }),
  };
}

/** platform-contract.md §7.3: `options` is kind-specific, `open_question_options` empty for all but the choice kinds. */
export function questionJson(q: Question): Record<string, unknown> {
  return {
    id: q.id,
    position: q.position,
    kind: q.kind,
    required: q.required === 1,
    body: q.body,
    options: JSON.parse(q.options) as unknown,
    translations: { [OFFER_LANGUAGE]: { body: q.body }, ...(JSON.parse(q.translations) as object) },
    open_question_options: q.choices.map((c) => ({
      id: c.id,
      position: c.position,
      body: c.body,
      translations: { [OFFER_LANGUAGE]: { body: c.body }, ...(JSON.parse(c.translations) as object) },
    })),
  };
}

const flag = (v: number | null): boolean | null => (v === null ? null : v === 1);

function withoutMissing(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));
}
