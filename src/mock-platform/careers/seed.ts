import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Db } from '../../lib/db.js';
import type { FieldSetting, QuestionKind } from './decisions.js';

/**
 * The careers sites of the seeded companies (run after `seedCompanies`). The offers show the variety
 * a client of the careers API must cope with (platform-contract.md §7.1): with and without locations, salary,
 * department, tags, translations and questions; HTML in descriptions; `close_at` unset; published,
 * draft and archived offers; a talent pool; remote, hybrid and on-site work. "Senior Backend
 * Engineer" asks one question of each of the twelve kinds. Ids are fixed so the README, the sandbox
 * and the tests can name them.
 *
 * Every offer has the four codes (employment type, category, experience, education) and its three
 * work-arrangement flags. Every department and tag a careers page offers as a filter is on at least
 * two published offers, so a filter always has something to narrow; "Customer Success" has a space
 * and "Zürich" a non-ASCII letter, to exercise how clients encode them.
 *
 * The HTML in descriptions and in infobox/legal questions is trusted: it is written here, and the
 * careers page renders it as HTML. Nothing a visitor sends is ever rendered unescaped.
 */

const DAY = 24 * 60 * 60_000;

const DEPARTMENTS = [
  { id: 1, companyId: 1, name: 'Engineering' },
  { id: 2, companyId: 1, name: 'Customer Success' },
  { id: 3, companyId: 1, name: 'Marketing' },
  { id: 4, companyId: 1, name: 'Design' },
  { id: 21, companyId: 2, name: 'Operations' },
];

const TAGS = [
  { id: 1, companyId: 1, name: 'TypeScript' },
  { id: 2, companyId: 1, name: 'Remote-friendly' },
  { id: 3, companyId: 1, name: 'Customer facing' },
  { id: 4, companyId: 1, name: 'Internship' },
  { id: 5, companyId: 1, name: 'Zürich' },
  { id: 21, companyId: 2, name: 'Logistics' },
];

export const SEED_LOCATIONS = [
  {
    id: 11, companyId: 1, name: 'Amsterdam HQ', street: 'Herengracht 100', city: 'Amsterdam', postal_code: '1015 BS',
    state: 'North Holland', state_code: 'NH', country: 'Netherlands', country_code: 'NL', note: null,
  },
  {
    id: 12, companyId: 1, name: 'Berlin office', street: 'Friedrichstraße 68', city: 'Berlin', postal_code: '10117',
    state: 'Berlin', state_code: 'BE', country: 'Germany', country_code: 'DE', note: 'Shared office space, 3rd floor',
  },
  {
    id: 13, companyId: 1, name: 'Zürich office', street: 'Bahnhofstrasse 10', city: 'Zürich', postal_code: '8001',
    state: 'Zurich', state_code: 'ZH', country: 'Switzerland', country_code: 'CH', note: null,
  },
  {
    id: 21, companyId: 2, name: 'Springfield warehouse', street: '742 Evergreen Terrace', city: 'Springfield',
    postal_code: '62704', state: 'Illinois', state_code: 'IL', country: 'United States', country_code: 'US', note: null,
  },
] as const;

interface SeedQuestion {
  id: number;
  kind: QuestionKind;
  required?: boolean;
  body: string;
  options?: Record<string, unknown>;
  translations?: Record<string, { body: string }>;
  choices?: { id: number; body: string; translations?: Record<string, { body: string }> }[];
}

interface SeedOffer {
  id: number;
  companyId: number;
  guid: string;
  slug: string;
  kind?: 'job' | 'talent_pool';
  status: 'draft' | 'published' | 'archived';
  title: string;
  departmentId?: number;
  tagIds?: number[];
  locationIds?: number[];
  /** Days before the seed's "now". */
  createdDaysAgo: number;
  publishedDaysAgo?: number;
  fields?: Record<string, string | number | boolean | null>;
  options?: Partial<Record<'cover_letter' | 'photo' | 'cv' | 'phone', FieldSetting>>;
  translations?: Record<string, Record<string, string>>;
  questions?: SeedQuestion[];
}

/** One of the three work arrangements, the other two flags off. */
function arrangement(kind: 'remote' | 'on_site' | 'hybrid') {
  return { remote: kind === 'remote', on_site: kind === 'on_site', hybrid: kind === 'hybrid' };
}

/** The four codes the careers API shows on every offer. */
function codes(employment: string, category: string, experience: string, education: string) {
  return { employment_type_code: employment, category_code: category, experience_code: experience, education_code: education };
}

/** The showcase offer: every field, two locations, translations, and all twelve question kinds. */
const BACKEND_ENGINEER: SeedOffer = {
  id: 101,
  companyId: 1,
  guid: 'k3x9p',
  slug: 'senior-backend-engineer',
  status: 'published',
  title: 'Senior Backend Engineer',
  departmentId: 1,
  tagIds: [1, 2],
  locationIds: [11, 12],
  createdDaysAgo: 30,
  publishedDaysAgo: 20,
  fields: {
    mailbox_email: 'job.k3x9p@acme.mock-platform.test',
    description:
      '<p>Acme builds the <strong>logistics platform</strong> behind thousands of deliveries a day.</p>' +
      '<p>You will design APIs, own services end to end and mentor other engineers.</p>',
    requirements:
      '<ul><li>5+ years building backend services</li><li>TypeScript or another typed language</li>' +
      '<li>Experience with SQL databases</li></ul>',
    highlight: '<p>Hybrid: two days a week in the office, the rest wherever you like.</p>',
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
    salary_min: '70000',
    salary_max: '90000',
    salary_period: 'year',
    salary_currency: 'EUR',
    sharing_title: 'Join Acme as a Senior Backend Engineer',
    sharing_description: 'Design the APIs behind thousands of deliveries a day.',
    sharing_image: 'https://images.acme.example/careers/backend-share.png',
    cover_image_url: 'https://images.acme.example/careers/backend-cover.jpg',
  },
  options: { cv: 'required', phone: 'optional', cover_letter: 'optional', photo: 'optional' },
  translations: {
    nl: {
      title: 'Senior backend-engineer',
      description: '<p>Acme bouwt het <strong>logistieke platform</strong> achter duizenden leveringen per dag.</p>',
      highlight: '<p>Hybride: twee dagen per week op kantoor.</p>',
      requirements: '<ul><li>5+ jaar ervaring met backend-services</li></ul>',
      sharing_image: 'https://images.acme.example/careers/backend-share-nl.png',
      sharing_title: 'Word senior backend-engineer bij Acme',
      sharing_description: 'Ontwerp de API’s achter duizenden leveringen per dag.',
      locations_question: 'Vanuit welk kantoor wil je werken?',
    },
    de: {
      title: 'Senior Backend-Entwickler (m/w/d)',
      description: '<p>Acme baut die <strong>Logistikplattform</strong> hinter tausenden Lieferungen am Tag.</p>',
      highlight: '<p>Hybrid: zwei Tage pro Woche im Büro.</p>',
      requirements: '<ul><li>5+ Jahre Erfahrung mit Backend-Diensten</li></ul>',
      sharing_image: 'https://images.acme.example/careers/backend-share-de.png',
      sharing_title: 'Werde Senior Backend-Entwickler bei Acme',
      sharing_description: 'Gestalte die APIs hinter tausenden Lieferungen am Tag.',
      locations_question: 'In welchem Büro möchtest du arbeiten?',
    },
  },
  questions: [
    {
      id: 1001, kind: 'string', required: true, body: 'What is your current job title?',
      translations: { nl: { body: 'Wat is je huidige functietitel?' } },
    },
    { id: 1002, kind: 'text', body: 'Tell us about a system you designed and what you would do differently today.' },
    {
      id: 1003, kind: 'boolean', required: true, body: 'Are you allowed to work in the EU?',
      translations: { nl: { body: 'Mag je in de EU werken?' } },
    },
    {
      id: 1004, kind: 'single_choice', required: true, body: 'How many years of TypeScript experience do you have?',
      choices: [
        { id: 5001, body: 'Less than 2', translations: { nl: { body: 'Minder dan 2' } } },
        { id: 5002, body: '2 to 5', translations: { nl: { body: '2 tot 5' } } },
        { id: 5003, body: 'More than 5', translations: { nl: { body: 'Meer dan 5' } } },
      ],
    },
    {
      id: 1005, kind: 'multi_choice', body: 'Which databases have you run in production?',
      choices: [
        { id: 5004, body: 'PostgreSQL' },
        { id: 5005, body: 'SQLite' },
        { id: 5006, body: 'MongoDB' },
        { id: 5007, body: 'Redis' },
      ],
    },
    { id: 1006, kind: 'date', required: true, body: 'When could you start?' },
    { id: 1007, kind: 'number', body: 'What is your notice period, in weeks?' },
    { id: 1008, kind: 'salary', body: 'What yearly salary do you expect?', options: { currency: 'EUR' } },
    { id: 1009, kind: 'video', body: 'Introduce yourself in a short video.', options: { length: 120 } },
    { id: 1010, kind: 'file', body: 'Upload a code sample you are proud of.' },
    {
      id: 1011, kind: 'infobox',
      body: '<p>Our process: a <strong>30-minute call</strong>, a take-home exercise and a team interview.</p>',
    },
    {
      id: 1012, kind: 'legal', required: true,
      body: '<p>I agree that Acme stores my application for 12 months, as described in the ' +
        '<a href="https://acme.example/privacy">privacy policy</a>.</p>',
      translations: { nl: { body: '<p>Ik ga akkoord met het <a href="https://acme.example/privacy">privacybeleid</a>.</p>' } },
    },
  ],
};

const SEED_OFFERS: SeedOffer[] = [
  BACKEND_ENGINEER,
  {
    // No location, no salary, no translations; phone required and no CV.
    id: 102, companyId: 1, guid: 'm2c7q', slug: 'customer-success-manager', status: 'published',
    title: 'Customer Success Manager', departmentId: 2, tagIds: [3], createdDaysAgo: 12, publishedDaysAgo: 10,
    fields: {
      description: '<p>Help our customers get the most out of Acme &amp; grow with them.</p>',
      remote: true,
      on_site: false,
      hybrid: false,
      employment_type_code: 'fulltime_permanent',
      category_code: 'customer_support',
      experience_code: 'mid_level',
      education_code: 'high_school',
      min_hours: 36,
      max_hours: 40,
    },
    options: { cv: 'off', phone: 'required', cover_letter: 'off' },
    questions: [
      {
        id: 1021, kind: 'multi_choice', required: true, body: 'Which languages do you speak fluently?',
        choices: [{ id: 5021, body: 'English' }, { id: 5022, body: 'Dutch' }, { id: 5023, body: 'German' }],
      },
      { id: 1022, kind: 'boolean', body: 'Could you cover a weekend shift once a month?' },
    ],
  },
  {
    // One location, on site, a required file question, a German translation.
    id: 103, companyId: 1, guid: 'p8d4w', slug: 'product-designer', status: 'published', title: 'Product Designer',
    departmentId: 4, tagIds: [2], locationIds: [11], createdDaysAgo: 8, publishedDaysAgo: 5,
    fields: {
      description: '<p>Shape how dispatchers plan a day of deliveries.</p>',
      remote: false,
      on_site: true,
      hybrid: false,
      employment_type_code: 'parttime_permanent',
      category_code: 'design',
      experience_code: 'mid_level',
      education_code: 'bachelor_degree',
      min_hours: 24,
      max_hours: 32,
      min_hours_per_week: '24',
      max_hours_per_week: '32',
    },
    options: { cv: 'optional', phone: 'optional' },
    translations: {
      de: {
        title: 'Produktdesigner (m/w/d)', description: '<p>Gestalte, wie Disponenten ihren Tag planen.</p>',
        highlight: '', requirements: '', sharing_image: '', sharing_title: '', sharing_description: '',
        locations_question: '',
      },
    },
    questions: [
      { id: 1031, kind: 'file', required: true, body: 'Your portfolio (PDF)' },
      { id: 1032, kind: 'string', body: 'Link to your portfolio site' },
    ],
  },
  {
    // Not on the careers site: a draft.
    id: 104, companyId: 1, guid: 'r5t1z', slug: 'marketing-intern', status: 'draft', title: 'Marketing Intern',
    departmentId: 3, tagIds: [4], createdDaysAgo: 2,
    fields: {
      description: '<p>Six months with our marketing team.</p>',
      ...arrangement('on_site'),
      ...codes('internship', 'marketing', 'student_college', 'unspecified'),
      min_hours: 40,
      max_hours: 40,
    },
  },
  {
    // A talent pool with almost nothing: no department, tags, locations, salary or questions.
    id: 105, companyId: 1, guid: 'w9n3b', slug: 'open-application', kind: 'talent_pool', status: 'published',
    title: 'Open application', createdDaysAgo: 60, publishedDaysAgo: 60,
    // No hours, no place: all three arrangement flags off, so `location` is "".
    fields: { remote: false, on_site: false, hybrid: false, ...codes('other', 'other', 'not_applicable', 'unspecified') },
    options: { cv: 'optional', phone: 'optional', cover_letter: 'optional' },
  },
  {
    // Not on the careers site: archived.
    id: 106, companyId: 1, guid: 'h6v2m', slug: 'frontend-engineer', status: 'archived', title: 'Frontend Engineer',
    departmentId: 1, tagIds: [1], locationIds: [12], createdDaysAgo: 90, publishedDaysAgo: 85,
    fields: {
      ...arrangement('hybrid'),
      ...codes('fulltime_permanent', 'software_development', 'mid_level', 'bachelor_degree'),
      min_hours: 40,
      max_hours: 40,
    },
  },
  {
    // Zürich, hybrid, a fixed-term contract; the second "Customer Success" offer and a "Zürich" tag.
    id: 107, companyId: 1, guid: 'z7s3c', slug: 'customer-support-specialist', status: 'published',
    title: 'Customer Support Specialist', departmentId: 2, tagIds: [3, 5], locationIds: [13],
    createdDaysAgo: 6, publishedDaysAgo: 3,
    fields: {
      mailbox_email: 'job.z7s3c@acme.mock-platform.test',
      description: '<p>Answer our Swiss and German customers by phone, chat and e-mail.</p>',
      requirements: '<ul><li>Fluent German and English</li></ul>',
      ...arrangement('hybrid'),
      ...codes('fulltime_fixed_term', 'customer_support', 'entry_level', 'vocational'),
      min_hours: 40,
      max_hours: 40,
    },
    options: { cv: 'optional', phone: 'required' },
    questions: [{ id: 1071, kind: 'boolean', required: true, body: 'Do you speak German fluently?' }],
  },
  {
    // On site in Zürich or Amsterdam, a yearly salary in Swiss francs.
    id: 108, companyId: 1, guid: 'q2e8t', slug: 'platform-engineer', status: 'published', title: 'Platform Engineer',
    departmentId: 1, tagIds: [1, 5], locationIds: [13, 11], createdDaysAgo: 18, publishedDaysAgo: 15,
    fields: {
      mailbox_email: 'job.q2e8t@acme.mock-platform.test',
      description: '<p>Run the Kubernetes clusters and the CI that every Acme team ships through.</p>',
      ...arrangement('on_site'),
      ...codes('fulltime_permanent', 'software_development', 'mid_level', 'master_degree'),
      min_hours: 40,
      max_hours: 40,
      salary_min: '110000',
      salary_max: '130000',
      salary_period: 'year',
      salary_currency: 'CHF',
    },
    options: { cv: 'required', phone: 'optional' },
  },
  {
    // Fully remote, no location: `location` reads "Remote". Freelance, part time.
    id: 109, companyId: 1, guid: 'b5r1d', slug: 'brand-designer', status: 'published', title: 'Brand Designer',
    departmentId: 4, tagIds: [2], createdDaysAgo: 26, publishedDaysAgo: 25,
    fields: {
      description: '<p>Give Acme a look that fits a logistics company people like.</p>',
      ...arrangement('remote'),
      ...codes('freelance', 'design', 'senior_level', 'unspecified'),
      min_hours: 16,
      max_hours: 24,
    },
    options: { cv: 'optional', phone: 'off', cover_letter: 'optional' },
  },
  {
    // Hourly pay in dollars, part time, no CV.
    id: 201, companyId: 2, guid: 'g1o5x', slug: 'warehouse-operator', status: 'published', title: 'Warehouse Operator',
    departmentId: 21, tagIds: [21], locationIds: [21], createdDaysAgo: 14, publishedDaysAgo: 7,
    fields: {
      description: '<p>Keep the Springfield warehouse moving.</p>',
      remote: false,
      on_site: true,
      hybrid: false,
      employment_type_code: 'parttime_permanent',
      category_code: 'logistics',
      experience_code: 'entry_level',
      education_code: 'high_school',
      min_hours: 20,
      max_hours: 30,
      salary_min: '18',
      salary_max: '22',
      salary_period: 'hour',
      salary_currency: 'USD',
    },
    options: { cv: 'off', phone: 'required', cover_letter: 'off' },
    questions: [
      { id: 2001, kind: 'boolean', required: true, body: 'Do you hold a forklift licence?' },
      { id: 2002, kind: 'date', body: 'Earliest start date' },
    ],
  },
  {
    id: 202, companyId: 2, guid: 'j4u8e', slug: 'night-shift-supervisor', status: 'draft',
    title: 'Night Shift Supervisor', departmentId: 21, createdDaysAgo: 1,
    fields: { ...arrangement('on_site'), ...codes('fulltime_permanent', 'logistics', 'manager', 'high_school'), min_hours: 40, max_hours: 40 },
  },
  {
    // Globex's second published offer: "Operations" and "Logistics" each narrow to two.
    id: 203, companyId: 2, guid: 'f3k6l', slug: 'forklift-driver', status: 'published', title: 'Forklift Driver',
    departmentId: 21, tagIds: [21], locationIds: [21], createdDaysAgo: 9, publishedDaysAgo: 4,
    fields: {
      description: '<p>Move pallets safely from the dock to the racks.</p>',
      ...arrangement('on_site'),
      ...codes('fulltime_permanent', 'logistics', 'entry_level', 'vocational'),
      min_hours: 38,
      max_hours: 40,
    },
    options: { cv: 'off', phone: 'required', cover_letter: 'off' },
    questions: [{ id: 2031, kind: 'boolean', required: true, body: 'Do you hold a forklift licence?' }],
  },
];

/** Slugs the tests and the README refer to. */
export const SEED_OFFER_SLUGS = {
  allKinds: 'senior-backend-engineer',
  noLocationNoSalary: 'customer-success-manager',
  requiredFile: 'product-designer',
  draft: 'marketing-intern',
  talentPool: 'open-application',
  archived: 'frontend-engineer',
  globex: 'warehouse-operator',
  zurich: 'customer-support-specialist',
  twoLocationsChf: 'platform-engineer',
  remoteOnly: 'brand-designer',
  globexSecond: 'forklift-driver',
} as const;

/** Inserts the careers sites into a seeded mock database (a no-op when offers exist). */
export function seedCareers(db: Db, clock: Clock): void {
  const { n } = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM offers').get()!;
  if (n > 0) return;
  const now = clock.now();
  const at = (daysAgo: number) => isoAt(now - daysAgo * DAY);

  const department = db.prepare('INSERT INTO departments (id, company_id, name) VALUES (?, ?, ?)');
  const tag = db.prepare('INSERT INTO tags (id, company_id, name) VALUES (?, ?, ?)');
  const location = db.prepare(
    `INSERT INTO locations (id, company_id, name, street, city, postal_code, state, state_code, country, country_code, note)
     VALUES (@id, @companyId, @name, @street, @city, @postal_code, @state, @state_code, @country, @country_code, @note)`,
  );
  const offerTag = db.prepare('INSERT INTO offer_tags (offer_id, tag_id) VALUES (?, ?)');
  const offerLocation = db.prepare('INSERT INTO offer_locations (offer_id, location_id, position) VALUES (?, ?, ?)');
  const question = db.prepare(
    `INSERT INTO open_questions (id, offer_id, position, kind, required, body, options, translations)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const choice = db.prepare(
    'INSERT INTO open_question_options (id, open_question_id, position, body, translations) VALUES (?, ?, ?, ?, ?)',
  );

  db.transaction(() => {
    for (const d of DEPARTMENTS) department.run(d.id, d.companyId, d.name);
    for (const t of TAGS) tag.run(t.id, t.companyId, t.name);
    for (const l of SEED_LOCATIONS) location.run(l);
    for (const o of SEED_OFFERS) {
      const row: Record<string, string | number | null> = {
        id: o.id,
        company_id: o.companyId,
        guid: o.guid,
        slug: o.slug,
        kind: o.kind ?? 'job',
        status: o.status,
        title: o.title,
        department_id: o.departmentId ?? null,
        translations: JSON.stringify(o.translations ?? {}),
        created_at: at(o.createdDaysAgo),
        updated_at: at(Math.min(o.createdDaysAgo, 1)),
        published_at: o.publishedDaysAgo === undefined ? null : at(o.publishedDaysAgo),
        close_at: null,
        ...Object.fromEntries(Object.entries(o.options ?? {}).map(([k, v]) => [`options_${k}`, v])),
        ...Object.fromEntries(
          Object.entries(o.fields ?? {}).map(([k, v]) => [k, typeof v === 'boolean' ? (v ? 1 : 0) : v]),
        ),
      };
      const columns = Object.keys(row);
      db.prepare(`INSERT INTO offers (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`).run(row);
      for (const tagId of o.tagIds ?? []) offerTag.run(o.id, tagId);
      (o.locationIds ?? []).forEach((locationId, i) => offerLocation.run(o.id, locationId, i));
      (o.questions ?? []).forEach((q, i) => {
        question.run(
          q.id, o.id, i + 1, q.kind, q.required ? 1 : 0, q.body,
          JSON.stringify(q.options ?? {}), JSON.stringify(q.translations ?? {}),
        );
        (q.choices ?? []).forEach((c, j) => choice.run(c.id, q.id, j + 1, c.body, JSON.stringify(c.translations ?? {})));
      });
    }
  })();
}
