import request from 'supertest';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SEED_COMPANIES } from '../../src/mock-platform/seed.js';
import { careersHarness, type CareersHarness } from './harness.js';

/**
 * The keys careers-API clients rely on: every offer of every seeded company carries them, in the
 * listing and in the offer's own answer, with the type clients expect.
 */

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;

type Check = (v: unknown) => boolean;
const string: Check = (v) => typeof v === 'string';
const integer: Check = (v) => Number.isInteger(v);
const boolean: Check = (v) => typeof v === 'boolean';
const orNull = (check: Check): Check => (v) => v === null || check(v);
const url: Check = (v) => typeof v === 'string' && /^https?:\/\//.test(v);
const timestamp: Check = (v) => typeof v === 'string' && TIMESTAMP.test(v);
const stringArray: Check = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string');
const object: Check = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const array: Check = (v) => Array.isArray(v);

const REQUIRED_KEYS: Record<string, Check> = {
  id: integer,
  guid: string,
  slug: string,
  title: string,
  company_name: string,
  status: string,
  position: integer,
  location: string,
  city: string,
  country: string,
  country_code: string,
  state_code: string,
  postal_code: string,
  employment_type_code: string,
  category_code: string,
  experience_code: string,
  education_code: string,
  department: orNull(string),
  remote: boolean,
  on_site: boolean,
  hybrid: boolean,
  min_hours: orNull(integer),
  max_hours: orNull(integer),
  tags: stringArray,
  careers_url: url,
  careers_apply_url: url,
  translations: object,
  open_questions: array,
  created_at: timestamp,
  updated_at: timestamp,
  published_at: timestamp,
  close_at: (v) => v === null,
  mailbox_email: orNull(string),
  description: orNull(string),
  requirements: orNull(string),
  options_cover_letter: string,
  options_photo: string,
  options_cv: string,
  options_phone: string,
};

let h: CareersHarness;
beforeEach(() => {
  h = careersHarness();
});
afterEach(() => h.close());

type Offer = Record<string, unknown> & { slug: string };

async function listing(subdomain: string, query: Record<string, string> = {}): Promise<Offer[]> {
  return (await request(h.app).get(`/careers/${subdomain}/api/offers/`).query(query).expect(200)).body.offers as Offer[];
}

function expectKeys(offer: Offer, where: string): void {
  for (const [key, check] of Object.entries(REQUIRED_KEYS)) {
    expect(offer, `${where}: ${offer.slug} lacks ${key}`).toHaveProperty([key]);
    expect(check(offer[key]), `${where}: ${offer.slug}.${key} = ${JSON.stringify(offer[key])}`).toBe(true);
  }
}

describe('offer fields clients rely on', () => {
  test.each(SEED_COMPANIES.map((c) => [c.subdomain]))('every offer of %s has each key with its type, in the listing and on its own', async (subdomain) => {
    const offers = await listing(subdomain);
    expect(offers.length).toBeGreaterThanOrEqual(2);
    for (const offer of offers) {
      expectKeys(offer, 'listing');
      const detail = (await request(h.app).get(`/careers/${subdomain}/api/offers/${offer.slug}`).expect(200)).body.offer as Offer;
      expectKeys(detail, 'detail');
      // The same offer reads the same in both places.
      expect(detail).toEqual(offer);
    }
  });

  test('translations list the offer’s own language, en, with its original texts, beside the others: a client asking for language=en finds its teaser', async () => {
    const TEXTS = ['title', 'description', 'highlight', 'requirements', 'sharing_image', 'sharing_title', 'sharing_description', 'locations_question'];
    for (const company of SEED_COMPANIES) {
      for (const offer of await listing(company.subdomain)) {
        const translations = offer.translations as Record<string, Record<string, unknown>>;
        expect(Object.keys(translations.en ?? {}).sort(), offer.slug).toEqual([...TEXTS].sort());
        for (const key of TEXTS) expect(typeof translations.en![key], `${offer.slug} en.${key}`).toBe('string');
        expect(translations.en).toMatchObject({ title: offer.title, description: offer.description ?? '' });
        for (const q of offer.open_questions as { body: string; translations: Record<string, { body: string }>; open_question_options: { body: string; translations: Record<string, { body: string }> }[] }[]) {
          expect(q.translations.en).toEqual({ body: q.body });
          for (const c of q.open_question_options) expect(c.translations.en).toEqual({ body: c.body });
        }
      }
    }
    const backend = (await listing('acme')).find((o) => o.slug === 'senior-backend-engineer')!;
    expect(Object.keys(backend.translations as object)).toEqual(['en', 'nl', 'de']);
  });

  test('position is the offer’s place on the careers site, the same whatever the filter', async () => {
    const offers = await listing('acme');
    expect(offers.map((o) => o.position)).toEqual(offers.map((_o, i) => i + 1));
    const filtered = await listing('acme', { department: 'Engineering' });
    for (const offer of filtered) expect(offer.position).toBe(offers.find((o) => o.slug === offer.slug)!.position);
  });

  test('location and its parts come from the first location, else the remote flag, else empty strings', async () => {
    const offers = await listing('acme');
    const bySlug = (slug: string) => offers.find((o) => o.slug === slug)!;
    expect(bySlug('senior-backend-engineer')).toMatchObject({
      location: 'Amsterdam, Netherlands',
      city: 'Amsterdam',
      country: 'Netherlands',
      country_code: 'NL',
      state_code: 'NH',
      postal_code: '1015 BS',
    });
    // Two locations: the flat fields describe the first; `locations` keeps both.
    expect(bySlug('senior-backend-engineer').locations).toHaveLength(2);
    expect(bySlug('customer-success-manager')).toMatchObject({
      remote: true,
      location: 'Remote',
      city: '',
      country: '',
      country_code: '',
      state_code: '',
      postal_code: '',
    });
    expect(bySlug('customer-success-manager')).not.toHaveProperty('locations');
    expect(bySlug('open-application')).toMatchObject({ remote: false, location: '', city: '', country_code: '' });
    const globex = await listing('globex');
    expect(globex.find((o) => o.slug === 'warehouse-operator')).toMatchObject({
      location: 'Springfield, United States',
      state_code: 'IL',
      postal_code: '62704',
    });
  });

  test('an offer without a department says null; one without hours says null', async () => {
    const pool = (await listing('acme')).find((o) => o.slug === 'open-application')!;
    expect(pool.department).toBeNull();
    expect(pool.min_hours).toBeNull();
    expect(pool.max_hours).toBeNull();
  });
});

describe('seeded filters', () => {
  test('every department and tag offered as a filter matches at least two published offers', async () => {
    for (const { subdomain } of SEED_COMPANIES) {
      const offers = await listing(subdomain);
      const departments = new Set(offers.map((o) => o.department).filter((d): d is string => typeof d === 'string'));
      const tags = new Set(offers.flatMap((o) => o.tags as string[]));
      for (const department of departments) {
        expect((await listing(subdomain, { department })).length, `${subdomain} department ${department}`).toBeGreaterThanOrEqual(2);
      }
      for (const tag of tags) {
        expect((await listing(subdomain, { tag })).length, `${subdomain} tag ${tag}`).toBeGreaterThanOrEqual(2);
      }
    }
  });

  test('a department with a space filters when percent-encoded', async () => {
    const res = await request(h.app).get('/careers/acme/api/offers/?department=Customer%20Success').expect(200);
    const offers = res.body.offers as Offer[];
    expect(offers.length).toBeGreaterThanOrEqual(2);
    expect(offers.every((o) => o.department === 'Customer Success')).toBe(true);
    const plus = await request(h.app).get('/careers/acme/api/offers/?department=Customer+Success').expect(200);
    expect(plus.body.offers).toEqual(offers);
  });

  test('a tag with a non-ASCII character filters when UTF-8 percent-encoded', async () => {
    const res = await request(h.app).get('/careers/acme/api/offers/?tag=Z%C3%BCrich').expect(200);
    const offers = res.body.offers as Offer[];
    expect(offers.length).toBeGreaterThanOrEqual(2);
    expect(offers.every((o) => (o.tags as string[]).includes('Zürich'))).toBe(true);
  });
});
