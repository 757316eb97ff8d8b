import type { Db } from '../../lib/db.js';
import type { FieldSetting, QuestionKind } from './decisions.js';

export interface CompanyRow {
  id: number;
  name: string;
  subdomain: string;
}

export interface OfferRow {
  id: number;
  company_id: number;
  guid: string;
  slug: string;
  kind: 'job' | 'talent_pool';
  status: 'draft' | 'published' | 'archived';
  title: string;
  department_id: number | null;
  mailbox_email: string | null;
  description: string | null;
  requirements: string | null;
  highlight: string | null;
  remote: number | null;
  on_site: number | null;
  hybrid: number | null;
  locations_question_required: number | null;
  locations_question: string | null;
  locations_question_type: string | null;
  location_question_visible: number | null;
  employment_type_code: string | null;
  category_code: string | null;
  experience_code: string | null;
  education_code: string | null;
  min_hours: number | null;
  max_hours: number | null;
  min_hours_per_week: string | null;
  max_hours_per_week: string | null;
  salary_min: string | null;
  salary_max: string | null;
  salary_period: string | null;
  salary_currency: string | null;
  options_cover_letter: FieldSetting;
  options_photo: FieldSetting;
  options_cv: FieldSetting;
  options_phone: FieldSetting;
  sharing_title: string | null;
  sharing_description: string | null;
  sharing_image: string | null;
  cover_image_url: string | null;
  /** JSON: {"<lang>": {title, description, …}} */
  translations: string;
  created_at: string;
  updated_at: string;
  published_at: string | null;
  close_at: string | null;
}

export interface LocationRow {
  id: number;
  company_id: number;
  name: string;
  street: string | null;
  city: string | null;
  postal_code: string | null;
  state: string | null;
  state_code: string | null;
  country: string | null;
  country_code: string | null;
  note: string | null;
}

export interface SimpleEntity {
  id: number;
  name: string;
}

export interface OptionRow {
  id: number;
  open_question_id: number;
  position: number;
  body: string;
  translations: string;
}

export interface QuestionRow {
  id: number;
  offer_id: number;
  position: number;
  kind: QuestionKind;
  required: number;
  body: string;
  options: string;
  translations: string;
}

export interface Question extends QuestionRow {
  choices: OptionRow[];
}

/** An offer with everything the listing, the form and the webhook payloads show about it. */
export interface OfferView {
  offer: OfferRow;
  company: CompanyRow;
  /** The offer's place on the careers site (1 = first), null when it is not published. */
  position: number | null;
  department: SimpleEntity | undefined;
  tags: SimpleEntity[];
  locations: LocationRow[];
  questions: Question[];
}

export interface OfferFilters {
  department?: string;
  tag?: string;
}

/** Reads of the careers site: companies by subdomain, offers and what hangs off them. */
export function careersStore(db: Db) {
  const companyBySubdomain = db.prepare<[string], CompanyRow>(
    'SELECT id, name, subdomain FROM companies WHERE subdomain = ?',
  );
  const companyById = db.prepare<[number], CompanyRow>('SELECT id, name, subdomain FROM companies WHERE id = ?');
  // Filters match names case-insensitively; both may be given (an offer must match both).
  const published = db.prepare<[number, string | null, string | null, string | null, string | null], OfferRow>(
    `SELECT o.* FROM offers o
       LEFT JOIN departments d ON d.id = o.department_id
      WHERE o.company_id = ? AND o.status = 'published'
        AND (? IS NULL OR d.name = ? COLLATE NOCASE)
        AND (? IS NULL OR EXISTS (SELECT 1 FROM offer_tags ot JOIN tags t ON t.id = ot.tag_id
                                   WHERE ot.offer_id = o.id AND t.name = ? COLLATE NOCASE))
      ORDER BY o.published_at DESC, o.id`,
  );
  // The careers site's order: what `publishedOffers` lists and what `position` counts.
  const publishedOrder = db.prepare<[number], { id: number }>(
    `SELECT id FROM offers WHERE company_id = ? AND status = 'published' ORDER BY published_at DESC, id`,
  );
  const offerBySlug = db.prepare<[number, string], OfferRow>('SELECT * FROM offers WHERE company_id = ? AND slug = ?');
  const offerById = db.prepare<[number], OfferRow>('SELECT * FROM offers WHERE id = ?');
  const department = db.prepare<[number], SimpleEntity>('SELECT id, name FROM departments WHERE id = ?');
  const tags = db.prepare<[number], SimpleEntity>(
    `SELECT t.id, t.name FROM offer_tags ot JOIN tags t ON t.id = ot.tag_id WHERE ot.offer_id = ? ORDER BY t.name`,
  );
  const locations = db.prepare<[number], LocationRow>(
    `SELECT l.* FROM offer_locations ol JOIN locations l ON l.id = ol.location_id
      WHERE ol.offer_id = ? ORDER BY ol.position, l.id`,
  );
  const questions = db.prepare<[number], QuestionRow>(
    'SELECT * FROM open_questions WHERE offer_id = ? ORDER BY position, id',
  );
  const choices = db.prepare<[number], OptionRow>(
    'SELECT * FROM open_question_options WHERE open_question_id = ? ORDER BY position, id',
  );
  const publishedDepartments = db.prepare<[number], { name: string }>(
    `SELECT DISTINCT d.name FROM offers o JOIN departments d ON d.id = o.department_id
      WHERE o.company_id = ? AND o.status = 'published' ORDER BY d.name`,
  );
  const publishedTags = db.prepare<[number], { name: string }>(
    `SELECT DISTINCT t.name FROM offers o JOIN offer_tags ot ON ot.offer_id = o.id JOIN tags t ON t.id = ot.tag_id
      WHERE o.company_id = ? AND o.status = 'published' ORDER BY t.name`,
  );

  /** Every published offer's place on the company's careers site, whatever a listing filters. */
  const positions = (companyId: number): Map<number, number> =>
    new Map(publishedOrder.all(companyId).map((r, i) => [r.id, i + 1]));

  function view(offer: OfferRow, company: CompanyRow, position = positions(company.id).get(offer.id) ?? null): OfferView {
    return {
      offer,
      company,
      position,
      department: offer.department_id === null ? undefined : department.get(offer.department_id),
      tags: tags.all(offer.id),
      locations: locations.all(offer.id),
      questions: questions.all(offer.id).map((q) => ({ ...q, choices: choices.all(q.id) })),
    };
  }

  return {
    company(subdomain: string): CompanyRow | undefined {
      return companyBySubdomain.get(subdomain);
    },
    companyById(id: number): CompanyRow | undefined {
      return companyById.get(id);
    },
    publishedOffers(company: CompanyRow, filters: OfferFilters = {}): OfferView[] {
      const dept = filters.department ?? null;
      const tag = filters.tag ?? null;
      const places = positions(company.id);
      return published.all(company.id, dept, dept, tag, tag).map((o) => view(o, company, places.get(o.id) ?? null));
    },
    /** The published offer with this slug; drafts and archived offers are not on the careers site. */
    publishedOffer(company: CompanyRow, slug: string): OfferView | undefined {
      const offer = offerBySlug.get(company.id, slug);
      return offer && offer.status === 'published' ? view(offer, company) : undefined;
    },
    /** Any offer, whatever its status: for webhook payloads. */
    offerById(id: number): OfferView | undefined {
      const offer = offerById.get(id);
      const company = offer && companyById.get(offer.company_id);
      return offer && company ? view(offer, company) : undefined;
    },
    /** Names the careers page offers as filters: those of published offers only. */
    filterChoices(company: CompanyRow): { departments: string[]; tags: string[] } {
      return {
        departments: publishedDepartments.all(company.id).map((r) => r.name),
        tags: publishedTags.all(company.id).map((r) => r.name),
      };
    },
  };
}
export type CareersStore = ReturnType<typeof careersStore>;
