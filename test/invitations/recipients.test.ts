import fc from 'fast-check';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import type { MailMessage } from '../../src/partner/mail/transport.js';
import { flowHarness, sendBody } from './support.js';
import { anyString } from '../support/arbitraries.js';

/** What nodemailer's JSON transport rendered, as the outbox row keeps it. */
interface StoredMail {
  to: { name: string; address: string }[];
  subject: string;
}

/** The header block of the e-mail as it would go out over SMTP, unfolded, as [name, value] pairs. */
async function renderedHeaders(from: string, message: MailMessage): Promise<[string, string][]> {
  const raw = await nodemailer.createTransport({ streamTransport: true, buffer: true }).sendMail({ from, ...message });
  const head = (raw.message as Buffer).toString('utf8').split(/\r?\n\r?\n/)[0]!;
  return head
    .replace(/\r?\n[ \t]/g, ' ')
    .split(/\r?\n/)
    .map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon), line.slice(colon + 1).trim()];
    });
}

describe('the invitation e-mail recipient', () => {
  it('when a candidate name carries another address list, then the e-mail still goes to the candidate alone', async () => {
    // The envelope is who the JSON transport would really have sent the e-mail to.
    const envelopes: string[][] = [];
    const h = await flowHarness({
      mailer: (real) => ({
        ...real,
        async send(message) {
          const sent = await real.send(message);
          envelopes.push(sent.envelope.to);
          return sent;
        },
      }),
    });
    try {
      const c = await h.customer('Acme', ['SQL basics']);
      const body = sendBody(c.tests[0]!.id, { first_name: 'Eve <eve@evil.test>, Bob', last_name: 'Smith', email: 'bob@example.com' });
      expect((await h.send(c.token, body)).status).toBe(201);
      expect(await h.startAndMail()).toMatchObject({ sent: 1 });
      expect(envelopes).toEqual([['bob@example.com']]);
      const [mail] = (await h.mails()) as unknown as StoredMail[];
      expect(mail!.to).toEqual([{ name: 'Eve <eve@evil.test>, Bob Smith', address: 'bob@example.com' }]);
    } finally {
      await h.close();
    }
  });

  it('whatever the names, account and test hold, then the e-mail has one recipient, the candidate, and no header is added', async () => {
    const rendered: [string, string][][] = [];
    const envelopes: string[][] = [];
    const h = await flowHarness({
      mailer: (real) => ({
        ...real,
        async send(message) {
          rendered.push(await renderedHeaders(h.config.mail.from, message));
          const sent = await real.send(message);
          envelopes.push(sent.envelope.to);
          return sent;
        },
      }),
    });
    const tricky = fc.string({ unit: fc.constantFrom('<', '>', ',', ';', ':', '"', '\r', '\n', '\\', '@', ' ', 'a', 'é', '漢', '😀', 'Bcc: x@evil.test') });
    // Anything but NUL, which never reaches the stores: send_candidate refuses it (422, `text` in
    // contract/schemas.ts), as PostgreSQL could not store it.
    const text = fc.oneof(tricky, anyString(), fc.string({ unit: 'grapheme' })).filter((s) => !s.includes('\u0000'));
    const headerNames = (headers: [string, string][]) => headers.map(([name]) => name.toLowerCase()).sort();
    try {
      const c = await h.customer('Acme', ['SQL basics']);
      await h.startAndMail(); // nothing yet; the test's id is all we need
      // The headers of a plain e-mail: any other name or a second one is an injected header.
      const plain = await renderedHeaders(h.config.mail.from, { to: { name: 'Ada Lovelace', address: 'ada@example.com' }, subject: 'x', text: 'x', html: 'x' });
      let n = 0;
      await fc.assert(
        fc.asyncProperty(text, text, text, text, fc.emailAddress(), async (firstName, lastName, accountName, testName, email) => {
          n += 1;
          const { account } = await h.accounts.create(accountName);
          const reportId = `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
          await h.invitations.create({
            reportId,
            accountId: account.id,
            companyId: 3,
            candidateId: n,
            testId: String(c.tests[0]!.id),
            testName,
            firstName,
            lastName,
            email,
            phone: null,
            extraInputs: {},
            platform: 'hiring-platform',
            platformData: {},
          });
          rendered.length = 0;
          envelopes.length = 0;
          expect(await h.startAndMail()).toMatchObject({ sent: 1 });
          const message = (await h.row('SELECT message FROM mail_outbox WHERE report_id = ?', reportId))!.message as string;
          const stored = JSON.parse(message) as StoredMail;
          expect(envelopes).toEqual([[email]]);
          expect(stored.to).toHaveLength(1);
          expect(stored.to[0]!.address).toBe(email);
          expect(stored.subject).not.toMatch(/[\r\n]/);
          expect(rendered).toHaveLength(1);
          expect(headerNames(rendered[0]!)).toEqual(headerNames(plain));
        }),
        { numRuns: 150 },
      );
    } finally {
      await h.close();
    }
  });
});
