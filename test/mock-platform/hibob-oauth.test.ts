import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningMockPlatform } from '../../src/mock-platform/server.js';
import { CLIENT_ID, CLIENT_SECRET, KRAMERICA, TOKEN_PATH, VANDELAY, api, bobSandbox, exchange, fakeVendor, installKramerica, tokenRequest, type FakeVendor } from './hibob-support.js';

/**
 * The mock's Bob as the vendor's OAuth client meets it (docs/hibob.md §2, §3; RFC 6749): the
 * install that sends the browser to the vendor's callback with a one-time code, and the token URL's
 * two grants — their answers, and every refusal a vendor can run into.
 */

let vendor: FakeVendor;
let mock: RunningMockPlatform;
let code: string;
beforeEach(async () => {
  vendor = await fakeVendor();
  ({ mock, code } = await bobSandbox(vendor));
});
afterEach(async () => {
  await mock.close();
  await vendor.close();
});

describe('the install', () => {
  it("sends the browser to the vendor's callback with a one-time code and the company id", async () => {
    expect(vendor.installs).toHaveLength(1);
    expect(vendor.installs[0]).toEqual({ code: expect.stringMatching(/^bob_code_[A-Za-z0-9_-]{32}$/), companyId: VANDELAY });

    const res = await request(mock.url).get(`/hibob/companies/${KRAMERICA}/marketplace/install`).set('sec-fetch-site', 'same-origin').expect(302);
    const location = new URL(res.headers.location!);
    expect(`${location.origin}${location.pathname}`).toBe(`${vendor.url}/hibob/oauth/callback`);
    expect(location.searchParams.get('companyId')).toBe(KRAMERICA);
    expect(location.searchParams.get('code')).not.toBe(code);
  });

  it('sends a declined install back with access_denied and no code', async () => {
    const res = await request(mock.url).get(`/hibob/companies/${KRAMERICA}/marketplace/install?decline=1`).expect(302);
    const location = new URL(res.headers.location!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.has('code')).toBe(false);
  });

  it('is refused from another site, which could otherwise install the app through a browser', async () => {
    await request(mock.url).get(`/hibob/companies/${KRAMERICA}/marketplace/install`).set('sec-fetch-site', 'cross-site').expect(403);
    expect((mock.db.prepare('SELECT installed_at FROM hibob_companies WHERE id = ?').get(KRAMERICA) as { installed_at: string | null }).installed_at).toBeNull();
  });

  it("a connect whose callback the vendor answers 400 says so, and what the vendor's page said", async () => {
    vendor.state.callbackStatus = 400;
    const res = await request(mock.url).post('/_mock/platforms/hibob/connect').send({ partner_url: vendor.url, partner_name: 'Skill Check', token: 'x' }).expect(422);
    expect(res.body.error).toBe("Skill Check's OAuth callback did not complete the install (HTTP 400: This install link has expired).");
  });
});

describe('the token URL', () => {
  it('exchanges a code for a Bearer access token, a refresh token, their lifetime, the scope and the company, never cached', async () => {
    const res = await tokenRequest(mock, { grant_type: 'authorization_code', code, redirect_uri: `${vendor.url}/hibob/oauth/callback` }).expect(200);
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^bob_at_/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^bob_rt_/),
      scope: 'hiring.integrations:write',
      companyId: VANDELAY,
    });
    expect(res.headers['cache-control']).toBe('no-store');
    // The token works on the API.
    await api(mock, 'post', '/hiring/assessments/packages', res.body.access_token, { packages: [] }).expect(201);
  });

  it('takes the client id and secret as HTTP Basic instead of the body', async () => {
    const res = await tokenRequest(mock, { grant_type: 'authorization_code', code }, 'basic').expect(200);
    expect(res.body.companyId).toBe(VANDELAY);
  });

  it('refuses a code used already, one expired, one made up, and one for another redirect URI (invalid_grant)', async () => {
    await exchange(mock, code);
    const used = await tokenRequest(mock, { grant_type: 'authorization_code', code }).expect(400);
    expect(used.body).toEqual({ error: 'invalid_grant', error_description: 'The code was exchanged already: a code works once' });

    const late = await installKramerica(mock);
    mock.clock.advance(10 * 60_000);
    const expired = await tokenRequest(mock, { grant_type: 'authorization_code', code: late }).expect(400);
    expect(expired.body.error_description).toBe('The code expired: it must be exchanged within 10 minutes');

    const madeUp = await tokenRequest(mock, { grant_type: 'authorization_code', code: 'bob_code_made_up' }).expect(400);
    expect(madeUp.body.error).toBe('invalid_grant');

    const other = await installKramerica(mock);
    const elsewhere = await tokenRequest(mock, { grant_type: 'authorization_code', code: other, redirect_uri: 'https://attacker.example/cb' }).expect(400);
    expect(elsewhere.body).toEqual({ error: 'invalid_grant', error_description: 'redirect_uri is not the one the code was issued for' });
  });

  it('rotates refresh tokens: each refresh issues a new pair, and the refresh token it used is refused from then on', async () => {
    const first = await exchange(mock, code);
    const refreshed = await tokenRequest(mock, { grant_type: 'refresh_token', refresh_token: first.refresh }).expect(200);
    expect(refreshed.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, companyId: VANDELAY });
    expect(refreshed.body.refresh_token).not.toBe(first.refresh);
    expect(refreshed.body.access_token).not.toBe(first.access);

    const stale = await tokenRequest(mock, { grant_type: 'refresh_token', refresh_token: first.refresh }).expect(400);
    expect(stale.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token was used already: each refresh issues a new one, which replaces it' });
    await tokenRequest(mock, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token }).expect(200);
    // An access token is no refresh token.
    const wrongKind = await tokenRequest(mock, { grant_type: 'refresh_token', refresh_token: first.access }).expect(400);
    expect(wrongKind.body.error).toBe('invalid_grant');
  });

  it('refuses a client that does not authenticate, authenticates twice, or is wrong (invalid_client, 401)', async () => {
    const none = await tokenRequest(mock, { grant_type: 'authorization_code', code }, 'none').expect(401);
    expect(none.body.error).toBe('invalid_client');

    const wrong = await tokenRequest(mock, { grant_type: 'authorization_code', code, client_id: CLIENT_ID, client_secret: 'not-the-secret' }, 'none').expect(401);
    expect(wrong.body).toEqual({ error: 'invalid_client', error_description: 'Unknown client, or a wrong client secret' });
    expect(wrong.headers['www-authenticate']).toBeUndefined();

    const wrongBasic = await request(mock.url)
      .post(TOKEN_PATH)
      .type('form')
      .set('authorization', `Basic ${Buffer.from(`${CLIENT_ID}:nope`).toString('base64')}`)
      .send({ grant_type: 'authorization_code', code })
      .expect(401);
    expect(wrongBasic.headers['www-authenticate']).toBe('Basic realm="Bob"');

    const twice = await tokenRequest(mock, { grant_type: 'authorization_code', code, client_secret: CLIENT_SECRET }, 'basic').expect(400);
    expect(twice.body.error).toBe('invalid_request');
    // None of these used the code.
    await exchange(mock, code);
  });

  it('refuses a JSON body, a repeated parameter, a missing grant_type or code, and another grant', async () => {
    const json = await request(mock.url).post(TOKEN_PATH).send({ grant_type: 'authorization_code', code, client_id: CLIENT_ID, client_secret: CLIENT_SECRET }).expect(400);
    expect(json.body).toEqual({ error: 'invalid_request', error_description: 'The request must be a form: Content-Type application/x-www-form-urlencoded' });

    const repeated = await request(mock.url)
      .post(TOKEN_PATH)
      .type('form')
      .send(`grant_type=authorization_code&code=${code}&code=${code}&client_id=${CLIENT_ID}&client_secret=${CLIENT_SECRET}`)
      .expect(400);
    expect(repeated.body.error).toBe('invalid_request');

    expect((await tokenRequest(mock, { code }).expect(400)).body.error_description).toBe('grant_type is required');
    expect((await tokenRequest(mock, { grant_type: 'authorization_code' }).expect(400)).body.error_description).toBe('code is required');
    expect((await tokenRequest(mock, { grant_type: 'client_credentials' }).expect(400)).body.error).toBe('unsupported_grant_type');
    await exchange(mock, code);
  });

  it('keeps codes, secrets and tokens out of the call log', async () => {
    const { refresh } = await exchange(mock, code);
    await tokenRequest(mock, { grant_type: 'refresh_token', refresh_token: refresh }).expect(200);
    const calls = await request(mock.url).get('/_mock/calls?endpoint=hibob.oauth.token').expect(200);
    expect(calls.body.calls).toHaveLength(2);
    const logged = JSON.stringify(calls.body.calls);
    for (const secret of [code, refresh, CLIENT_SECRET, 'bob_at_', 'bob_rt_']) expect(logged).not.toContain(secret);
    expect(JSON.parse(calls.body.calls[0].response_body)).toMatchObject({ access_token: '[redacted]', refresh_token: '[redacted]', companyId: VANDELAY });
    // The install's visit to the callback, the code masked in its URL.
    const install = await request(mock.url).get('/_mock/calls?endpoint=hibob.install').expect(200);
    expect(install.body.calls[0].url).toBe(`${vendor.url}/hibob/oauth/callback?code=%5Bredacted%5D&companyId=${VANDELAY}`);
  });

  it('answers a fault armed on it, as Bob down would', async () => {
    await request(mock.url).post('/_mock/faults').send({ endpoint: 'hibob.oauth.token', status: 503, times: 1 }).expect(201);
    await tokenRequest(mock, { grant_type: 'authorization_code', code }).expect(503);
    // The code was not spent by the failed call.
    await exchange(mock, code);
  });
});
