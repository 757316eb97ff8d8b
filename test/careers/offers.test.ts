import request from 'supertest';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { careersHarness, PUBLIC_URL, type CareersHarness } from './harness.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;

let h: CareersHarness;
beforeEach(() => {
  h = careersHarness();
});
afterEach(() => h.close());

type Offer = Record<string, unknown> & { slug: string };
const slugs = (body: { offers: Offer[] }) => body.offers.map((o) => o.slug);

describe('GET /careers/{subdomain}/api/offers/', () => {
  test('lists the published offers of the company only, newest first, without authentication', async () => {
    const res = await request(h.app).get('/careers/acme/api/offers/').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    // marketing-intern is a draft, frontend-engineer archived, warehouse-operator belongs to globex.
    expect(slugs(res.body)).toEqual([
      'customer-support-specialist',
      'product-designer',
      'customer-success-manager',
      'platform-engineer',
      'senior-backend-engineer',
      'brand-designer',
      'open-application',
    ]);
    expect(res.body.offers.every((o: Offer) => o.status === 'published')).toBe(true);

    const globex = await request(h.app).get('/careers/globex/api/offers').expect(200);
    expect(slugs(globex.body)).toEqual(['forklift-driver', 'warehouse-operator']);
  });

  test('shows every field of an offer that has them, with careers-site timestamps', async () => {
    const res = await request(h.app).get('/careers/acme/api/offers/').expect(200);
    const offer = res.body.offers.find((o: Offer) => o.slug === 'senior-backend-engineer');
    expect(offer).toMatchObject({
      id: 101,
      guid: 'k3x9p',
      company_name: 'Acme Corp',
      title: 'Senior Backend Engineer',
      department: 'Engineering',
      status: 'published',
      careers_url: `${PUBLIC_URL}/careers/acme/offers/senior-backend-engineer`,
      careers_apply_url: `${PUBLIC_URL}/careers/acme/offers/senior-backend-engineer/apply`,
      mailbox_email: 'job.k3x9p@acme.mock-platform.test',
      created_at: '2026-10-02 09:00:00 UTC',
      published_at: '2026-10-12 09:00:00 UTC',
      updated_at: '2026-10-31 09:00:00 UTC',
      close_at: null,
      remote: false,
      on_site: false,
      hybrid: true,
      locations_question_required: true,
      locations_question: 'Which office would you like to work from?',
      locations_question_type: 'multiple_choice',
      location_question_visible: true,
      employment_type_code: 'fulltime_permanent',
      category_code: 'software_development',
      experience_code: 'senior_level',
      education_code: 'bachelor_degree',
      min_hours: 32,
      max_hours: 40,
      min_hours_per_week: '32',
      max_hours_per_week: '40',
      salary: { min: '70000', max: '90000', period: 'year', currency: 'EUR' },
      options_cover_letter: 'optional',
      options_photo: 'optional',
      options_cv: 'required',
      options_phone: 'optional',
      sharing_title: 'Join Acme as a Senior Backend Engineer',
      sharing_description: 'Design the APIs behind thousands of deliveries a day.',
      sharing_image: 'https://images.acme.example/careers/backend-share.png',
      cover_image: { url: 'https://images.acme.example/careers/backend-cover.jpg' },
      tags: ['Remote-friendly', 'TypeScript'],
    });
    expect(offer.description).toContain('<strong>logistics platform</strong>');
    expect(offer.requirements).toContain('<ul>');
    expect(Object.keys(offer.translations)).toEqual(['en', 'nl', 'de']);
    expect(Object.keys(offer.translations.nl).sort()).toEqual(
      ['description', 'highlight', 'locations_question', 'requirements', 'sharing_description', 'sharing_image', 'sharing_title', 'title'],
    );
    expect(offer.locations).toEqual([
      {
        id: 11, name: 'Amsterdam HQ', street: 'Herengracht 100', city: 'Amsterdam', postal_code: '1015 BS',
        state: 'North Holland', state_code: 'NH', country: 'Netherlands', country_code: 'NL',
      },
      {
        id: 12, name: 'Berlin office', street: 'Friedrichstraße 68', city: 'Berlin', postal_code: '10117',
        state: 'Berlin', state_code: 'BE', country: 'Germany', country_code: 'DE', note: 'Shared office space, 3rd floor',
      },
    ]);
  });

  test('an offer lacking optional fields omits them; the keys clients rely on are there, null when unknown', async () => {
    const res = await request(h.app).get('/careers/acme/api/offers/').expect(200);
    const pool = res.body.offers.find((o: Offer) => o.slug === 'open-application');
    for (const field of ['locations', 'salary', 'cover_image', 'highlight', 'sharing_title', 'locations_question', 'min_hours_per_week']) {
      expect(pool).not.toHaveProperty(field);
    }
    expect(pool).toMatchObject({
      department: null,
      mailbox_email: null,
      description: null,
      requirements: null,
      min_hours: null,
      max_hours: null,
      close_at: null,
      location: '',
      tags: [],
      translations: {},
      open_questions: [],
    });
    expect(Object.entries(pool).filter(([, v]) => v === null).map(([k]) => k).sort()).toEqual(
      ['close_at', 'department', 'description', 'mailbox_email', 'max_hours', 'min_hours', 'requirements'],
    );
  });

  test('every timestamp reads "YYYY-MM-DD HH:MM:SS UTC"', async () => {
    const res = await request(h.app).get('/careers/acme/api/offers/').expect(200);
    for (const offer of res.body.offers as Offer[]) {
      for (const field of ['created_at', 'updated_at', 'published_at']) expect(offer[field]).toMatch(TIMESTAMP);
    }
  });

  test('lists the screening questions of all twelve kinds with their options and translations', async () => {
    const res = await request(h.app).get('/careers/acme/api/offers/senior-backend-engineer').expect(200);
    const questions = res.body.offer.open_questions as Record<string, unknown>[];
    expect(questions.map((q) => q.kind)).toEqual([
      'string', 'text', 'boolean', 'single_choice', 'multi_choice', 'date', 'number', 'salary', 'video', 'file', 'infobox', 'legal',
    ]);
    expect(questions.map((q) => q.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(questions.find((q) => q.kind === 'salary')).toMatchObject({ id: 1008, options: { currency: 'EUR' }, open_question_options: [] });
    expect(questions.find((q) => q.kind === 'video')).toMatchObject({ options: { length: 120 } });
    expect(questions.find((q) => q.kind === 'string')).toMatchObject({
      id: 1001, required: true, options: {}, translations: { nl: { body: 'Wat is je huidige functietitel?' } },
    });
    expect(questions.find((q) => q.kind === 'single_choice')).toMatchObject({
      open_question_options: [
        { id: 5001, position: 1, body: 'Less than 2', translations: { nl: { body: 'Minder dan 2' } } },
        { id: 5002, position: 2, body: '2 to 5' },
        { id: 5003, position: 3, body: 'More than 5' },
      ],
    });
    expect(questions.find((q) => q.kind === 'legal')!.body).toContain('<a href="https://acme.example/privacy">');
  });

  test('filters by department name', async () => {
    const res = await request(h.app).get('/careers/acme/api/offers/').query({ department: 'Engineering' }).expect(200);
    expect(slugs(res.body)).toEqual(['platform-engineer', 'senior-backend-engineer']);
    const lower = await request(h.app).get('/careers/acme/api/offers/').query({ department: 'engineering' }).expect(200);
    expect(slugs(lower.body)).toEqual(['platform-engineer', 'senior-backend-engineer']);
  });

  test('filters by tag name', async () => {
    const res = await request(h.app).get('/careers/acme/api/offers/').query({ tag: 'Remote-friendly' }).expect(200);
    expect(slugs(res.body)).toEqual(['product-designer', 'senior-backend-engineer', 'brand-designer']);
  });

  test('department and tag together must both match', async () => {
    const both = await request(h.app).get('/careers/acme/api/offers/').query({ department: 'Design', tag: 'Remote-friendly' }).expect(200);
    expect(slugs(both.body)).toEqual(['product-designer', 'brand-designer']);
    const none = await request(h.app).get('/careers/acme/api/offers/').query({ department: 'Engineering', tag: 'Customer facing' }).expect(200);
    expect(none.body).toEqual({ offers: [] });
  });

  test('filters that match nothing answer an empty list; filters never reveal drafts', async () => {
    const res = await request(h.app).get('/careers/acme/api/offers/').query({ department: 'Nope' }).expect(200);
    expect(res.body).toEqual({ offers: [] });
    const intern = await request(h.app).get('/careers/acme/api/offers/').query({ tag: 'Internship' }).expect(200);
    expect(intern.body).toEqual({ offers: [] });
  });

  test('an empty filter is no filter', async () => {
    const res = await request(h.app).get('/careers/acme/api/offers/?department=&tag=').expect(200);
    expect(res.body.offers).toHaveLength(7);
  });

  test('a filter of spaces is empty too, as the API document says', async () => {
    const res = await request(h.app).get('/careers/acme/api/offers/?department=%20%20&tag=+').expect(200);
    expect(res.body.offers).toHaveLength(7);
  });

  test('a filter given twice is a 422 in the JSON error shape', async () => {
    const res = await request(h.app).get('/careers/acme/api/offers/?tag=a&tag=b').expect(422);
    expect(res.body.errors).toHaveProperty('tag');
  });

  test('is readable from pages on other origins', async () => {
    const res = await request(h.app).get('/careers/acme/api/offers/').set('Origin', 'https://jobs.vendor.example').expect(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const preflight = await request(h.app)
      .options('/careers/acme/api/offers/senior-backend-engineer/candidates')
      .set('Origin', 'https://jobs.vendor.example')
      .set('Access-Control-Request-Method', 'POST')
      .expect(204);
    expect(preflight.headers['access-control-allow-methods']).toContain('POST');
  });
});

describe('GET /careers/{subdomain}/api/offers/{slug}', () => {
  test('answers one published offer as {"offer": …}', async () => {
    const res = await request(h.app).get('/careers/globex/api/offers/warehouse-operator').expect(200);
    expect(res.body.offer).toMatchObject({
      id: 201,
      company_name: 'Globex',
      salary: { min: '18', max: '22', period: 'hour', currency: 'USD' },
      options_cv: 'off',
      options_phone: 'required',
    });
  });
});

describe('careers API 404s', () => {
  test.each([
    ['an unknown company', '/careers/nope/api/offers/'],
    ['an unknown offer', '/careers/acme/api/offers/no-such-offer'],
    ['a draft offer', '/careers/acme/api/offers/marketing-intern'],
    ['an archived offer', '/careers/acme/api/offers/frontend-engineer'],
    ["another company's offer", '/careers/acme/api/offers/warehouse-operator'],
    ['an unknown API path', '/careers/acme/api/jobs'],
  ])('%s answers 404 {"error":"Not Found"} declared as text/plain', async (_case, path) => {
    const res = await request(h.app).get(path).expect(404);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(JSON.parse(res.text)).toEqual({ error: 'Not Found' });
  });
});
