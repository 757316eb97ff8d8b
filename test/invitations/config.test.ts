import { describe, expect, it } from 'vitest';
import { ConfigError, DEV_ADMIN_PASSWORD, DEV_CANDIDATE_LINK_SECRET, loadConfig } from '../../src/partner/config.js';
import { demoSettings } from '../../src/partner/provider/demo/settings.js';
import { settingsOf } from '../../src/partner/config.js';
import { hiringPlatform } from '../../src/partner/platforms/index.js';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

describe('configuration of the invitation flow', () => {
  it('when nothing is set, then every key has a working local default', () => {
    const c = loadConfig({});
    expect(settingsOf(c, hiringPlatform())).toMatchObject({ url: 'http://127.0.0.1:4000', codename: 'demo-assessments', secret: undefined });
    expect(c.kind).toBe('assessment');
    expect(c.links).toEqual({
      secret: DEV_CANDIDATE_LINK_SECRET,
      candidateTtlMs: 14 * 86_400_000,
      resultsTtlMs: 365 * 86_400_000,
      developmentKey: true,
    });
    expect(c.vendorResults).toEqual({ secret: undefined });
    expect(c.admin).toEqual({ username: 'admin', password: DEV_ADMIN_PASSWORD, token: undefined });
    expect(c.mail).toEqual({ transport: 'json', smtpUrl: undefined, from: 'Demo Assessments <no-reply@partner.localhost>', maxConnections: 5 });
  });

  it('when NODE_ENV is production without a link secret or an admin credential, then start-up fails naming both', () => {
    const problems = problemsOf({ NODE_ENV: 'production' });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^CANDIDATE_LINK_SECRET: is required in production/);
    expect(problems[1]).toMatch(/^ADMIN_PASSWORD: is required in production \(or set ADMIN_TOKEN\)/);
  });

  it('when production has its own secrets, then it starts without any development default', () => {
    const c = loadConfig({
      NODE_ENV: 'production',
      CANDIDATE_LINK_SECRET: 'p'.repeat(40),
      ADMIN_TOKEN: 't'.repeat(30),
    });
    expect(c.links.secret).toBe('p'.repeat(40));
    expect(c.admin.password).toBeUndefined();
    expect(c.admin.token).toBe('t'.repeat(30));
  });

  it('when values are bad, then every problem is named at once, with cross-variable rules', () => {
    const problems = problemsOf({
      NODE_ENV: 'production',
      CANDIDATE_LINK_SECRET: 'too-short',
      ADMIN_PASSWORD: 'short',
      PARTNER_KIND: 'quiz',
      VENDOR_RESULTS_SECRET: 'short',
      PLATFORM_URL: 'ftp://x',
      PARTNER_CODENAME: 'Not A Codename',
      MAIL_TRANSPORT: 'smtp',
      SMTP_MAX_CONNECTIONS: '0',
    }).join('\n');
    for (const key of ['CANDIDATE_LINK_SECRET', 'ADMIN_PASSWORD', 'PARTNER_KIND', 'VENDOR_RESULTS_SECRET', 'PLATFORM_URL', 'PARTNER_CODENAME', 'SMTP_URL', 'SMTP_MAX_CONNECTIONS']) {
      expect(problems).toContain(`${key}:`);
    }
    expect(problems).toContain('ADMIN_PASSWORD: must be at least 12 characters in production');
  });

  it('when PASS_MARK is set, then the demo provider reads it, and a bad one stops start-up like a setting of the kit', () => {
    expect(demoSettings({})).toEqual({ passMark: 60 });
    expect(demoSettings({ PASS_MARK: '75' })).toEqual({ passMark: 75 });
    expect(() => demoSettings({ PASS_MARK: '101' })).toThrow(ConfigError);
    expect(() => demoSettings({ PASS_MARK: '101' })).toThrow(/PASS_MARK: /);
  });

  it('when MAIL_FROM is not exactly one address, then start-up fails naming it', () => {
    for (const from of ['a@partner.test, b@partner.test', 'Eve <eve@evil.test>, Bob', 'no-reply', 'no-reply@partner.test\r\nBcc: eve@evil.test']) {
      expect(problemsOf({ MAIL_FROM: from })).toEqual([expect.stringMatching(/^MAIL_FROM: must be one address/)]);
    }
    expect(loadConfig({ MAIL_FROM: '"Acme, Inc." <no-reply@acme.test>' }).mail.from).toBe('"Acme, Inc." <no-reply@acme.test>');
  });

  it("when MAIL_FROM has no display name, then e-mails come from the vendor's name (PARTNER_NAME, else the manifest's)", () => {
    expect(loadConfig({ MAIL_FROM: 'no-reply@acme.test' }).mail.from).toBe('Demo Assessments <no-reply@acme.test>');
    expect(loadConfig({}).mail.from).toBe('Demo Assessments <no-reply@partner.localhost>');
    expect(loadConfig({ MAIL_FROM: 'no-reply@acme.test', PARTNER_NAME: 'Acme "Tests", Inc.' }).mail.from).toBe('"Acme \\"Tests\\", Inc." <no-reply@acme.test>');
    expect(loadConfig({ MAIL_FROM: 'Acme Mail <no-reply@acme.test>', PARTNER_NAME: 'Acme' }).mail.from).toBe('Acme Mail <no-reply@acme.test>');
  });

  it("the vendor's name is PARTNER_NAME, else the name in the manifest the partner registers with, read at start-up", () => {
    expect(loadConfig({}).partnerName).toBe('Demo Assessments');
    expect(loadConfig({ PARTNER_MANIFEST: 'scripts/partner-manifest.background-check.json' }).partnerName).toBe('Demo Background Checks');
    expect(loadConfig({ PARTNER_MANIFEST: 'scripts/partner-manifest.reference-check.json', PARTNER_NAME: '  Acme Checks ' }).partnerName).toBe('Acme Checks');
    expect(problemsOf({ PARTNER_NAME: 'Acme\nBcc: eve@evil.test' })).toEqual([expect.stringMatching(/^PARTNER_NAME: must be one line/)]);
    expect(problemsOf({ PARTNER_MANIFEST: 'scripts/no-such-manifest.json' })).toEqual([expect.stringMatching(/^PARTNER_MANIFEST: .*no-such-manifest\.json/)]);
  });

  it('when only ADMIN_TOKEN is set, then there is no default password as a second way in', () => {
    expect(loadConfig({ ADMIN_TOKEN: 'x'.repeat(24) }).admin.password).toBeUndefined();
  });

  it('when an empty PARTNER_SECRET is given (as in .env), then deliveries are treated as unregistered', () => {
    expect(settingsOf(loadConfig({ PARTNER_SECRET: '' }), hiringPlatform()).secret).toBeUndefined();
  });
});
