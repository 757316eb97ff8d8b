import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/partner/config.js';
import { main } from '../../src/partner/server.js';
import { freshDatabase } from '../support/database.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe("the partner's root URL", () => {
  let dir: string;
  let running: Awaited<ReturnType<typeof main>>;
  let url: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'partner-home-'));
    running = await main(loadConfig({ ...(await freshDatabase(dir)), PORT: '0', LOG_LEVEL: 'silent' }));
    url = running.publicUrl;
  });
  afterAll(async () => {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('in a browser: a page naming the server, its callback URLs at its public URL, and links to the dashboard and /healthz', async () => {
    const res = await fetch(`${url}/`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain('Partner server');
    for (const callback of ['validate_token', 'tests', 'send_candidate']) expect(page).toContain(`${url}/callbacks/${callback}`);
    expect(page).toContain(`${url}/callbacks/reports/{report_id}/cancel`);
    expect(page).toContain(`${url}/webhooks/platform/{company_id}`);
    expect(page).toContain('href="/admin"');
    expect(page).toContain('href="/healthz"');
    expect(page).not.toContain('"error"');
  });

  it('to a JSON client: the same description as JSON (200)', async () => {
    const res = await fetch(`${url}/`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      server: 'partner',
      kind: 'assessment',
      public_url: url,
      platforms: {
        'hiring-platform': {
          label: 'Hiring platform',
          endpoints: {
            validate_token: `${url}/callbacks/validate_token`,
            tests: `${url}/callbacks/tests`,
            send_candidate: `${url}/callbacks/send_candidate`,
            cancel: `${url}/callbacks/reports/{report_id}/cancel`,
            webhooks: `${url}/webhooks/platform/{company_id}`,
          },
          settings: { integrations_url: expect.any(String), codename: expect.any(String) },
        },
        greenhouse: {
          label: 'Greenhouse',
          endpoints: {
            list_tests: `${url}/greenhouse/list_tests`,
            send_test: `${url}/greenhouse/send_test`,
            test_status: `${url}/greenhouse/test_status`,
            response_error: `${url}/greenhouse/response_error`,
          },
          settings: { patch_hosts: 'greenhouse.io, *.greenhouse.io, loopback' },
        },
        ashby: {
          label: 'Ashby',
          endpoints: {
            base_url: `${url}/ashby`,
            'assessment.list': `${url}/ashby/assessment.list`,
            'assessment.start': `${url}/ashby/assessment.start`,
            'assessment.cancel': `${url}/ashby/assessment.cancel`,
          },
          settings: { api_url: 'https://api.ashbyhq.com' },
        },
        hibob: {
          label: 'HiBob',
          endpoints: { oauth_callback: `${url}/hibob/oauth/callback`, webhooks: `${url}/hibob/webhooks` },
          settings: {
            api_url: 'https://api.hibob.com/v1',
            token_url: 'https://auth.app.hibob.com/oauth2/v1/apps/token',
            configured: 'no: HIBOB_CLIENT_ID, HIBOB_CLIENT_SECRET, HIBOB_WEBHOOK_SECRET not set',
          },
        },
      },
      dashboard: `${url}/admin`,
      health: `${url}/healthz`,
    });
  });

  it('other unknown paths still answer 404', async () => {
    expect((await fetch(`${url}/nothing-here`)).status).toBe(404);
  });
});
