import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, test } from 'vitest';
import { eventually } from '../support/eventually.js';
import { apply, ENCODINGS, file, jsonFile, type ApplicationSpec } from './client.js';
import { careersHarness, PUBLIC_URL, type CareersHarness } from './harness.js';

const BACKEND = '/careers/acme/api/offers/senior-backend-engineer/candidates';
const SUPPORT = '/careers/acme/api/offers/customer-success-manager/candidates';
const DESIGNER = '/careers/acme/api/offers/product-designer/candidates';

const CV = file('cv.pdf', 'application/pdf', '%PDF-1.4 the CV of Ada');
const VIDEO = file('intro.mp4', 'video/mp4', 'a short video');
const SAMPLE = file('sample.zip', 'application/zip', 'PK a code sample');

const BACKEND_APPLICATION: ApplicationSpec = {
  name: 'Ada Applicant',
  email: 'ada.applicant@example.com',
  phone: '+31 20 123 4567',
  cover_letter: 'I would love to work on your delivery platform.',
  cv: CV,
  location_ids: [12],
  answers: [
    { open_question_id: 1001, content: 'Staff engineer' },
    { open_question_id: 1003, flag: true },
    { open_question_id: 1004, content: 'More than 5' },
    { open_question_id: 1006, content: '2027-01-15' },
    { open_question_id: 1009, file: VIDEO },
    { open_question_id: 1010, file: SAMPLE },
    { open_question_id: 1012, flag: true },
  ],
};

let h: CareersHarness;
afterEach(() => h.close());

interface FileRow {
  id: number;
  purpose: string;
  original_name: string;
  content_type: string;
  size: number;
  path: string | null;
  status: string;
}
const fileRows = () => h.db.prepare<[], FileRow>('SELECT * FROM uploaded_files ORDER BY id').all();

describe('a successful application', () => {
  test('answers 201 with the created candidate', async () => {
    h = careersHarness();
    const res = await apply(h.app, 'json', `${BACKEND}?async=true`, BACKEND_APPLICATION).expect(201);
    expect(res.body.candidate).toMatchObject({
      id: expect.any(Number),
      name: 'Ada Applicant',
      emails: ['ada.applicant@example.com'],
      phones: ['+31 20 123 4567'],
      source: 'career_site',
      cover_letter: 'I would love to work on your delivery platform.',
      cv: { name: 'cv.pdf', content_type: 'application/pdf', size: CV.data.length, status: 'stored' },
      created_at: '2026-11-01 09:00:00 UTC',
      updated_at: '2026-11-01 09:00:00 UTC',
      placements: [{ offer_id: 101, offer_slug: 'senior-backend-engineer', location_ids: [12] }],
    });
    expect(res.body.candidate.open_question_answers).toHaveLength(7);
  });

  test('stores the candidate (source career_site), its placement on the offer and its answers', async () => {
    h = careersHarness();
    const res = await apply(h.app, 'json', `${BACKEND}?async=true`, BACKEND_APPLICATION).expect(201);
    const id = res.body.candidate.id as number;
    expect(h.db.prepare('SELECT company_id, name, email, phone, source FROM candidates WHERE id = ?').get(id)).toEqual({
      company_id: 1,
      name: 'Ada Applicant',
      email: 'ada.applicant@example.com',
      phone: '+31 20 123 4567',
      source: 'career_site',
    });
    const placement = h.db.prepare<[number], { id: number; offer_id: number }>('SELECT id, offer_id FROM placements WHERE candidate_id = ?').get(id)!;
    expect(placement.offer_id).toBe(101);
    expect(h.db.prepare('SELECT location_id FROM placement_locations WHERE placement_id = ?').all(placement.id)).toEqual([{ location_id: 12 }]);
    expect(
      h.db.prepare('SELECT open_question_id, content, option_ids, flag FROM open_question_answers WHERE placement_id = ? ORDER BY open_question_id').all(placement.id),
    ).toEqual([
      { open_question_id: 1001, content: 'Staff engineer', option_ids: null, flag: null },
      { open_question_id: 1003, content: null, option_ids: null, flag: 1 },
      { open_question_id: 1004, content: 'More than 5', option_ids: '[5003]', flag: null },
      { open_question_id: 1006, content: '2027-01-15', option_ids: null, flag: null },
      { open_question_id: 1009, content: null, option_ids: null, flag: null },
      { open_question_id: 1010, content: null, option_ids: null, flag: null },
      { open_question_id: 1012, content: null, option_ids: null, flag: 1 },
    ]);
  });

  test('records a confirmation e-mail to the candidate in the mail log', async () => {
    h = careersHarness();
    await apply(h.app, 'json', BACKEND, BACKEND_APPLICATION).expect(201);
    expect(h.mail.list()).toEqual([
      expect.objectContaining({
        companyId: 1,
        to: 'ada.applicant@example.com',
        kind: 'application_confirmation',
        subject: 'Your application for Senior Backend Engineer at Acme Corp',
        body: expect.stringContaining('Hi Ada Applicant'),
      }),
    ]);
  });

  test('emits new_candidate and candidate_assigned (career_site) with the webhook payload entities', async () => {
    h = careersHarness();
    const res = await apply(h.app, 'multipart', BACKEND, BACKEND_APPLICATION).expect(201);
    const candidate = {
      id: res.body.candidate.id,
      name: 'Ada Applicant',
      emails: ['ada.applicant@example.com'],
      phones: ['+31 20 123 4567'],
      photo_thumb_url: `${PUBLIC_URL}/photos/candidates/${res.body.candidate.id}/thumb.svg`,
      source: 'career_site',
      referrer: null,
      created_at: '2026-11-01T09:00:00.000Z',
      updated_at: '2026-11-01T09:00:00.000Z',
    };
    const offer = {
      id: 101,
      title: 'Senior Backend Engineer',
      kind: 'job',
      slug: 'senior-backend-engineer',
      locations: [
        { id: 11, country_code: 'NL', state_code: 'NH', full_address: 'Netherlands, North Holland, Amsterdam, 1015 BS, Herengracht 100' },
        { id: 12, country_code: 'DE', state_code: 'BE', full_address: 'Germany, Berlin, Berlin, 10117, Friedrichstraße 68' },
      ],
      department: { id: 1, name: 'Engineering' },
      tags: [{ id: 2, name: 'Remote-friendly' }, { id: 1, name: 'TypeScript' }],
      created_at: '2026-10-02T09:00:00.000Z',
      updated_at: '2026-10-31T09:00:00.000Z',
    };
    const company = { id: 1, name: 'Acme Corp' };
    expect(h.events).toEqual([
      { companyId: 1, eventType: 'new_candidate', eventSubtype: 'career_site', payload: { candidate, company, offers: [offer] } },
      {
        companyId: 1,
        eventType: 'candidate_assigned',
        eventSubtype: 'career_site',
        payload: { candidate, company, offer, placement_locations: [offer.locations[1]] },
      },
    ]);
  });

  test('with nothing but name and e-mail where the offer asks no more', async () => {
    h = careersHarness();
    const res = await apply(h.app, 'json', '/careers/acme/api/offers/open-application/candidates', {
      name: 'Grace',
      email: 'grace.applicant@example.com',
    }).expect(201);
    expect(res.body.candidate).toMatchObject({ phones: [], placements: [{ offer_id: 105, location_ids: [] }] });
    expect(res.body.candidate).not.toHaveProperty('cv');
  });
});

describe.each(ENCODINGS)('candidate fields sent as %s', (encoding) => {
  test('name and e-mail are always required', async () => {
    h = careersHarness();
    const res = await apply(h.app, encoding, '/careers/acme/api/offers/open-application/candidates', { name: '', email: null, phone: '1' }).expect(422);
    expect(res.body.errors).toEqual({ 'candidate.name': ['is required'], 'candidate.email': ['is required'] });
    expect(res.body.error).toBe('name is required; email is required');
  });

  test('an invalid e-mail address is a 422', async () => {
    h = careersHarness();
    const res = await apply(h.app, encoding, '/careers/acme/api/offers/open-application/candidates', { name: 'Ada', email: 'not-an-address' }).expect(422);
    expect(res.body.errors).toEqual({ 'candidate.email': ['must be a valid e-mail address'] });
  });

  test('phone is required where the offer requires it; a CV is ignored where the offer has it off', async () => {
    h = careersHarness();
    const without = await apply(h.app, encoding, SUPPORT, { name: 'Ada', email: 'ada@example.org' }).expect(422);
    expect(without.body.errors).toEqual({ 'candidate.phone': ['is required'] });

    const res = await apply(h.app, encoding, `${SUPPORT}?async=true`, { name: 'Ada', email: 'ada@example.org', phone: '+1 555 0100', cv: CV }).expect(201);
    expect(res.body.candidate).not.toHaveProperty('cv');
    expect(fileRows()).toEqual([]);
    expect(h.filesOnDisk()).toEqual([]);
  });

  test('a CV is required where the offer requires it, and the location question when it is required', async () => {
    h = careersHarness();
    const { cv: _cv, location_ids: _locations, ...rest } = BACKEND_APPLICATION;
    const res = await apply(h.app, encoding, BACKEND, rest).expect(422);
    expect(res.body.errors).toEqual({ 'candidate.cv': ['is required'], 'candidate.location_ids': ['is required'] });
    expect(h.filesOnDisk()).toEqual([]);
  });

  test('a location that is not one of the offer is a 422', async () => {
    h = careersHarness();
    const res = await apply(h.app, encoding, BACKEND, { ...BACKEND_APPLICATION, location_ids: [12, 21] }).expect(422);
    expect(res.body.errors).toEqual({ 'candidate.location_ids': ['21 is not a location of this offer'] });
  });

  test('an offer with one location attaches the candidate to it', async () => {
    h = careersHarness();
    const res = await apply(h.app, encoding, `${DESIGNER}?async=true`, {
      name: 'Ada',
      email: 'ada@example.org',
      answers: [{ open_question_id: 1031, file: file('portfolio.pdf', 'application/pdf') }],
    }).expect(201);
    expect(res.body.candidate.placements).toEqual([expect.objectContaining({ offer_id: 103, location_ids: [11] })]);
  });
});

describe('uploads', () => {
  test('?async=true stores every file before the candidate exists: the 201 shows them stored, on disk', async () => {
    h = careersHarness();
    const res = await apply(h.app, 'multipart', `${BACKEND}?async=true`, BACKEND_APPLICATION).expect(201);
    const candidate = res.body.candidate;
    expect(candidate.cv).toMatchObject({ name: 'cv.pdf', status: 'stored' });
    const answers = candidate.open_question_answers as { open_question_id: number; file?: { status: string } }[];
    expect(answers.filter((a) => a.file).map((a) => [a.open_question_id, a.file!.status])).toEqual([
      [1009, 'stored'],
      [1010, 'stored'],
    ]);

    const rows = fileRows();
    expect(rows.map((r) => [r.purpose, r.original_name, r.content_type, r.size, r.status])).toEqual([
      ['cv', 'cv.pdf', 'application/pdf', CV.data.length, 'stored'],
      ['answer', 'intro.mp4', 'video/mp4', VIDEO.data.length, 'stored'],
      ['answer', 'sample.zip', 'application/zip', SAMPLE.data.length, 'stored'],
    ]);
    for (const [row, sent] of [[rows[0]!, CV], [rows[1]!, VIDEO], [rows[2]!, SAMPLE]] as const) {
      expect(row.path).toMatch(/^1\/[0-9a-f-]{36}\.(pdf|mp4|zip)$/);
      expect(readFileSync(path.join(h.uploadsDir, row.path!))).toEqual(sent.data);
    }
    expect(h.filesOnDisk().sort()).toEqual(rows.map((r) => r.path).sort());
  });

  test('without async the 201 comes first with the files "processing", and they are stored right after', async () => {
    h = careersHarness();
    const res = await apply(h.app, 'multipart-escaped', BACKEND, BACKEND_APPLICATION).expect(201);
    expect(res.body.candidate.cv).toMatchObject({ name: 'cv.pdf', status: 'processing' });
    await eventually(() => expect(fileRows().map((r) => r.status)).toEqual(['stored', 'stored', 'stored']), { what: 'the files to be stored' });
    const rows = fileRows();
    expect(readFileSync(path.join(h.uploadsDir, rows[0]!.path!))).toEqual(CV.data);
    expect(h.filesOnDisk().sort()).toEqual(rows.map((r) => r.path).sort());
  });

  test('a JSON application carries its files base64-encoded', async () => {
    h = careersHarness();
    const res = await apply(h.app, 'json', `${BACKEND}?async=true`, BACKEND_APPLICATION).expect(201);
    expect(res.body.candidate.cv).toMatchObject({ name: 'cv.pdf', content_type: 'application/pdf', status: 'stored' });
    const cv = fileRows().find((r) => r.purpose === 'cv')!;
    expect(readFileSync(path.join(h.uploadsDir, cv.path!))).toEqual(CV.data);
  });

  test('an optional photo is stored with the application', async () => {
    h = careersHarness();
    const photo = file('me.png', 'image/png', 'PNG bytes');
    const res = await apply(h.app, 'multipart', `${BACKEND}?async=true`, { ...BACKEND_APPLICATION, photo }).expect(201);
    expect(res.body.candidate.photo).toMatchObject({ name: 'me.png', status: 'stored' });
  });

  test('a client file name never reaches the file system', async () => {
    h = careersHarness();
    const sneaky = file('../../../etc/passwd', 'text/plain', 'root');
    await apply(h.app, 'multipart', `${BACKEND}?async=true`, { ...BACKEND_APPLICATION, cv: sneaky }).expect(201);
    const cv = fileRows().find((r) => r.purpose === 'cv')!;
    expect(cv.original_name).toBe('passwd');
    expect(cv.path).toMatch(/^1\/[0-9a-f-]{36}$/);
  });

  test.each([
    ['with ?async=true', `${BACKEND}?async=true`],
    ['without async', BACKEND],
  ])('a 422 %s leaves no candidate and no file behind', async (_case, url) => {
    h = careersHarness();
    const candidates = h.count('candidates');
    const spec = { ...BACKEND_APPLICATION, answers: [...BACKEND_APPLICATION.answers!.slice(0, -1), { open_question_id: 1012, flag: false }] };
    await apply(h.app, 'multipart', url, spec).expect(422);
    expect(h.count('candidates')).toBe(candidates);
    expect(h.count('placements')).toBe(0);
    expect(fileRows()).toEqual([]);
    expect(h.filesOnDisk()).toEqual([]);
  });

  test('a file over 10 MB is a 413 and nothing is kept', async () => {
    h = careersHarness();
    const big = { name: 'huge.pdf', type: 'application/pdf', data: Buffer.alloc(10 * 1024 * 1024 + 1, 1) };
    const res = await apply(h.app, 'multipart', `${BACKEND}?async=true`, { ...BACKEND_APPLICATION, cv: big }).expect(413);
    expect(res.body.error).toBe('File candidate[cv] is larger than 10 MB');
    expect(h.count('candidates')).toBe(4);
    expect(h.filesOnDisk()).toEqual([]);
  });

  test('a base64 file over 10 MB in JSON is a 413', async () => {
    h = careersHarness();
    const big = { name: 'huge.pdf', type: 'application/pdf', data: Buffer.alloc(10 * 1024 * 1024 + 1, 1) };
    const res = await apply(h.app, 'json', BACKEND, { ...BACKEND_APPLICATION, cv: big }).expect(413);
    expect(res.body.error).toBe('File candidate.cv is larger than 10 MB');
    expect(h.count('candidates')).toBe(4);
  });

  test('a malformed field name is a 400 and the uploaded files are removed', async () => {
    h = careersHarness();
    const res = await request(h.app)
      .post(`${BACKEND}?async=true`)
      .field('candidate[name', 'Ada')
      .attach('candidate[cv]', CV.data, { filename: CV.name, contentType: CV.type })
      .expect(400);
    expect(res.body.error).toBe('Malformed field name "candidate[name"');
    expect(h.filesOnDisk()).toEqual([]);
  });

  test('when recording the application fails, the stored files are removed and nothing is kept', async () => {
    const failing = { emit: () => { throw new Error('webhook store is down'); } };
    h = careersHarness({ events: failing });
    const res = await apply(h.app, 'multipart', `${BACKEND}?async=true`, BACKEND_APPLICATION).expect(500);
    expect(res.body).toEqual({ error: 'Internal Server Error' });
    expect(h.count('candidates')).toBe(4);
    expect(h.count('placements')).toBe(0);
    expect(h.mail.list()).toEqual([]);
    expect(fileRows()).toEqual([]);
    expect(h.filesOnDisk()).toEqual([]);
  });
});

describe('requests the application call refuses', () => {
  test('a body that is neither JSON nor multipart is a 415', async () => {
    h = careersHarness();
    const res = await request(h.app).post(BACKEND).set('Content-Type', 'text/plain').send('name=Ada').expect(415);
    expect(res.body.error).toBe('Content-Type must be application/json or multipart/form-data');
  });

  test('malformed JSON is a 400', async () => {
    h = careersHarness();
    await request(h.app).post(BACKEND).set('Content-Type', 'application/json').send('{"candidate": ').expect(400);
  });

  test('no body at all is a 422 asking for the candidate', async () => {
    h = careersHarness();
    const res = await request(h.app).post(BACKEND).expect(422);
    expect(res.body.errors).toEqual({ candidate: ['is required'] });
  });

  test('a JSON file object without base64 data is a 422', async () => {
    h = careersHarness();
    const res = await request(h.app)
      .post(BACKEND)
      .send({ candidate: { name: 'Ada', email: 'ada@example.org', location_ids: [11], cv: { ...jsonFile(CV), data: 'not base64!' } } })
      .expect(422);
    expect(res.body.errors).toEqual({ 'candidate.cv.data': ['must be base64'] });
  });

  test.each([
    ['a draft offer', '/careers/acme/api/offers/marketing-intern/candidates'],
    ['an archived offer', '/careers/acme/api/offers/frontend-engineer/candidates'],
    ['an unknown offer', '/careers/acme/api/offers/nope/candidates'],
    ['an unknown company', '/careers/nope/api/offers/senior-backend-engineer/candidates'],
  ])('applying for %s is the careers 404', async (_case, url) => {
    h = careersHarness();
    const res = await request(h.app).post(url).send({ candidate: { name: 'Ada', email: 'ada@example.org' } }).expect(404);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(JSON.parse(res.text)).toEqual({ error: 'Not Found' });
    expect(h.count('candidates')).toBe(4);
  });

  test('?async with a value other than true/false is a 422', async () => {
    h = careersHarness();
    const res = await apply(h.app, 'json', `${BACKEND}?async=soon`, BACKEND_APPLICATION).expect(422);
    expect(res.body.errors).toHaveProperty('async');
  });
});
