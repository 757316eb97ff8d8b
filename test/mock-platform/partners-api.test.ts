import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { PARTNER_SECRET_LENGTH } from '../../src/contract/decisions.js';
import { Partner } from '../../src/contract/schemas.js';
import { ACME, GLOBEX, mockPlatform, partnerBody } from './support.js';

const urls = {
  help_article: 'https://partner.example/help/integrating',
  validate_token: 'https://partner.example/callbacks/validate_token',
  tests: 'https://partner.example/callbacks/tests',
  send_candidate: 'https://partner.example/callbacks/send_candidate',
};
const path = (codename = 'skill-check', companyId: number = ACME.id) => `/api/p/${codename}/c/${companyId}/partner`;

function create(app: ReturnType<typeof mockPlatform>['app'], body: unknown = partnerBody(urls), codename = 'skill-check') {
  return request(app).post(path(codename)).set('authorization', `Bearer ${ACME.token}`).send(body as object);
}

describe('partners API: POST creates and updates', () => {
  it('creates the record with a generated secret and the default inputs (201)', async () => {
    const { app } = mockPlatform();
    const res = await create(app).expect(201);
    const partner = Partner.parse(res.body.partner);
    expect(partner).toMatchObject({
      codename: 'skill-check',
      company_id: ACME.id,
      kind: 'assessment',
      name: 'Skill Check',
      description: 'Coding tests',
      urls,
      inputs: [
        { kind: 'first_name', required: true },
        { kind: 'last_name', required: true },
        { kind: 'email', required: true },
      ],
      created_at: '2026-01-05T09:00:00.000Z',
    });
    expect(partner.secret).toHaveLength(PARTNER_SECRET_LENGTH);
    expect(partner.secret.length).toBeGreaterThanOrEqual(32);
    expect(partner.secret).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('when the same company posts again, replaces the whole record and keeps the secret (200)', async () => {
    const { app, clock } = mockPlatform();
    const first = await create(app).expect(201);
    clock.advance(60_000);
    const replacement = partnerBody(urls, { name: 'Skill Check Pro', description: undefined, inputs: [{ kind: 'phone', required: true }] });
    const second = await create(app, replacement).expect(200);
    expect(second.body.partner).toMatchObject({
      name: 'Skill Check Pro',
      inputs: [{ kind: 'phone', required: true }],
      secret: first.body.partner.secret,
      created_at: first.body.partner.created_at,
      updated_at: '2026-01-05T09:01:00.000Z',
    });
    // POST is a replacement: a field left out is gone (PATCH is the partial update).
    expect(second.body.partner).not.toHaveProperty('description');
  });

  it('gives each partner its own secret', async () => {
    const { app } = mockPlatform();
    const a = await create(app, partnerBody(urls), 'partner-a').expect(201);
    const b = await create(app, partnerBody(urls), 'partner-b').expect(201);
    expect(a.body.partner.secret).not.toBe(b.body.partner.secret);
  });
});

describe('partners API: GET, PATCH, DELETE', () => {
  it('reads the record back', async () => {
    const { app } = mockPlatform();
    const created = await create(app).expect(201);
    const res = await request(app).get(path()).set('authorization', `Bearer ${ACME.token}`).expect(200);
    expect(res.body).toEqual(created.body);
  });

  it('PATCH changes only the given fields and merges urls key by key', async () => {
    const { app } = mockPlatform();
    await create(app).expect(201);
    const res = await request(app)
      .patch(path())
      .set('authorization', `Bearer ${ACME.token}`)
      .send({ name: 'Renamed', urls: { tests: 'https://partner.example/v2/tests' } })
      .expect(200);
    expect(res.body.partner).toMatchObject({
      name: 'Renamed',
      kind: 'assessment',
      description: 'Coding tests',
      urls: { ...urls, tests: 'https://partner.example/v2/tests' },
    });
  });

  it('PATCH validates what it is given (422) and changes nothing', async () => {
    const { app } = mockPlatform();
    await create(app).expect(201);
    const res = await request(app)
      .patch(path())
      .set('authorization', `Bearer ${ACME.token}`)
      .send({ kind: 'astrology', urls: { tests: 'ftp://partner.example/tests' } })
      .expect(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['kind', 'urls.tests']);
    const after = await request(app).get(path()).set('authorization', `Bearer ${ACME.token}`).expect(200);
    expect(after.body.partner).toMatchObject({ kind: 'assessment', urls });
  });

  it('PATCH may leave the help article out, but not clear it (422)', async () => {
    const { app } = mockPlatform();
    await create(app).expect(201);
    const patch = (body: object) => request(app).patch(path()).set('authorization', `Bearer ${ACME.token}`).send(body);
    const kept = await patch({ urls: { tests: 'https://partner.example/v2/tests' } }).expect(200);
    expect(kept.body.partner.urls.help_article).toBe(urls.help_article);
    for (const help_article of [null, '', '   ']) {
      const res = await patch({ urls: { help_article } }).expect(422);
      expect(Object.keys(res.body.errors)).toEqual(['urls.help_article']);
    }
    const moved = await patch({ urls: { help_article: 'https://partner.example/help/v2' } }).expect(200);
    expect(moved.body.partner.urls.help_article).toBe('https://partner.example/help/v2');
  });

  it('DELETE removes the record (204); it is then unknown (404)', async () => {
    const { app } = mockPlatform();
    await create(app).expect(201);
    await request(app).delete(path()).set('authorization', `Bearer ${ACME.token}`).expect(204);
    const res = await request(app).get(path()).set('authorization', `Bearer ${ACME.token}`).expect(404);
    expect(res.body).toEqual({ error: 'Unknown partner' });
  });

  it.each(['get', 'patch', 'delete'] as const)('%s of an unknown codename answers 404', async (method) => {
    const { app } = mockPlatform();
    const res = await request(app)[method](path('nobody')).set('authorization', `Bearer ${ACME.token}`).send({}).expect(404);
    expect(res.body.error).toBe('Unknown partner');
  });

  it("another company's partner is unknown to it (404), not revealed", async () => {
    const { app } = mockPlatform();
    await create(app).expect(201);
    await request(app).get(path('skill-check', GLOBEX.id)).set('authorization', `Bearer ${GLOBEX.token}`).expect(404);
    await request(app).delete(path('skill-check', GLOBEX.id)).set('authorization', `Bearer ${GLOBEX.token}`).expect(404);
    await request(app).get(path()).set('authorization', `Bearer ${ACME.token}`).expect(200);
  });
});

describe('partners API: authentication (401)', () => {
  it('refuses a request without a token', async () => {
    const { app } = mockPlatform();
    const res = await request(app).post(path()).send(partnerBody(urls)).expect(401);
    expect(res.body.error).toMatch(/Missing API token/);
  });

  it('refuses an unknown token', async () => {
    const { app } = mockPlatform();
    const res = await request(app).post(path()).set('authorization', 'Bearer mock_api_nope').send(partnerBody(urls)).expect(401);
    expect(res.body).toEqual({ error: 'Invalid API token' });
  });

  it('refuses a token of another company, on every method', async () => {
    const { app } = mockPlatform();
    await create(app).expect(201);
    for (const method of ['post', 'get', 'patch', 'delete'] as const) {
      const res = await request(app)[method](path()).set('authorization', `Bearer ${GLOBEX.token}`).send(partnerBody(urls));
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/does not belong to the company/);
    }
  });

  it('refuses a revoked token', async () => {
    const { app } = mockPlatform();
    const issued = await request(app).post('/_mock/api-tokens').send({ company_id: ACME.id }).expect(201);
    await create(app).set('authorization', `Bearer ${issued.body.token}`).expect(201);
    await request(app).delete(`/_mock/api-tokens/${issued.body.api_token.id}`).expect(204);
    await request(app).get(path()).set('authorization', `Bearer ${issued.body.token}`).expect(401);
  });

  it('refuses a Basic or malformed Authorization header', async () => {
    const { app } = mockPlatform();
    await request(app).post(path()).set('authorization', 'Basic bW9jazphcGk=').send(partnerBody(urls)).expect(401);
    await request(app).post(path()).set('authorization', 'Bearer').send(partnerBody(urls)).expect(401);
  });
});

describe('partners API: conflicts and invalid bodies', () => {
  it('answers 409 when another company owns the codename, and keeps the owner’s record', async () => {
    const { app } = mockPlatform();
    const owner = await create(app).expect(201);
    const res = await request(app)
      .post(path('skill-check', GLOBEX.id))
      .set('authorization', `Bearer ${GLOBEX.token}`)
      .send(partnerBody(urls, { name: 'Impostor' }))
      .expect(409);
    expect(res.body.error).toBe('The codename "skill-check" is taken by another company');
    const after = await request(app).get(path()).set('authorization', `Bearer ${ACME.token}`).expect(200);
    expect(after.body).toEqual(owner.body);
  });

  it.each([
    ['an unknown kind', { kind: 'astrology' }, 'kind'],
    ['a missing name', { name: undefined }, 'name'],
    ['a blank name', { name: '   ' }, 'name'],
    ['a URL that is not absolute', { urls: { ...urls, tests: '/callbacks/tests' } }, 'urls.tests'],
    ['a missing callback URL', { urls: { help_article: urls.help_article, validate_token: urls.validate_token, tests: urls.tests } }, 'urls.send_candidate'],
    ['a missing help article', { urls: { validate_token: urls.validate_token, tests: urls.tests, send_candidate: urls.send_candidate } }, 'urls.help_article'],
    ['a null help article', { urls: { ...urls, help_article: null } }, 'urls.help_article'],
    ['an empty help article', { urls: { ...urls, help_article: '' } }, 'urls.help_article'],
    ['a help article that is not a URL', { urls: { ...urls, help_article: 'see our docs' } }, 'urls.help_article'],
    ['an unknown input kind', { inputs: [{ kind: 'shoe_size', required: true }] }, 'inputs.0.kind'],
    ['two inputs with one name', { inputs: [{ kind: 'phone' }, { kind: 'phone' }] }, 'inputs'],
  ])('answers 422 for %s, naming the field, and stores nothing', async (_what, change, field) => {
    const { app } = mockPlatform();
    const res = await create(app, { ...partnerBody(urls), ...change }).expect(422);
    expect(res.body.errors).toHaveProperty([field]);
    expect(typeof res.body.error).toBe('string');
    await request(app).get(path()).set('authorization', `Bearer ${ACME.token}`).expect(404);
  });

  it.each(['Skill-Check', 'a', 'has space', 'x'.repeat(65)])('answers 422 for the codename %j', async (codename) => {
    const { app } = mockPlatform();
    const res = await create(app, partnerBody(urls), encodeURIComponent(codename)).expect(422);
    expect(res.body.errors).toHaveProperty('codename');
  });

  it('answers 415 for a body that is not JSON', async () => {
    const { app } = mockPlatform();
    const res = await request(app)
      .post(path())
      .set('authorization', `Bearer ${ACME.token}`)
      .set('content-type', 'text/plain')
      .send('kind=assessment')
      .expect(415);
    expect(res.body.error).toMatch(/application\/json/);
  });

  it('answers 400 for malformed JSON and 422 for a JSON body that is not an object', async () => {
    const { app } = mockPlatform();
    await request(app).post(path()).set('authorization', `Bearer ${ACME.token}`).set('content-type', 'application/json').send('{"kind":').expect(400);
    await create(app, ['assessment']).expect(422);
  });
});

describe('personal API tokens', () => {
  it('stores only digests: the seeded tokens do not appear in the database', async () => {
    const { db } = mockPlatform();
    const dump = JSON.stringify(db.prepare('SELECT * FROM api_tokens').all());
    expect(dump).not.toContain('mock_api_acme');
    expect(db.prepare('SELECT count(*) AS n FROM api_tokens').get()).toEqual({ n: 2 });
  });

  it('the admin endpoint issues a working token, shown once', async () => {
    const { app } = mockPlatform();
    const res = await request(app).post('/_mock/api-tokens').send({ company_id: GLOBEX.id, label: 'CI' }).expect(201);
    expect(res.body.token).toMatch(/^mock_api_[A-Za-z0-9_-]{32}$/);
    expect(res.body.api_token).toMatchObject({ company_id: GLOBEX.id, user_id: 3, label: 'CI', revoked_at: null });
    const list = await request(app).get('/_mock/api-tokens').expect(200);
    expect(JSON.stringify(list.body)).not.toContain(res.body.token);
    await request(app)
      .post(path('globex-tests', GLOBEX.id))
      .set('authorization', `Bearer ${res.body.token}`)
      .send(partnerBody(urls))
      .expect(201);
  });

  it('the admin endpoint refuses an unknown company or member (422)', async () => {
    const { app } = mockPlatform();
    await request(app).post('/_mock/api-tokens').send({ company_id: 99 }).expect(422);
    await request(app).post('/_mock/api-tokens').send({ company_id: ACME.id, user_id: 3 }).expect(422);
    await request(app).delete('/_mock/api-tokens/999').expect(404);
  });
});
