import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../../src/partner/mail/transport.js';

/** A real SMTP server on loopback, so MAIL_TRANSPORT=smtp is tested end to end, authentication included. */
describe('the SMTP transport', () => {
  const received: { from: string; to: string[]; user: string | undefined; data: string }[] = [];
  let server: SMTPServer;
  let port: number;

  beforeAll(async () => {
    server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (auth.username === 'partner' && auth.password === 'p@ss word') callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
      onData(stream, session, callback) {
        let data = '';
        stream.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            user: session.user as string | undefined,
            data,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const mailer = (userinfo: string) =>
    createMailer({
      transport: 'smtp',
      smtpUrl: `smtp://${userinfo}127.0.0.1:${port}`,
      from: 'Demo Assessments <no-reply@partner.test>',
      maxConnections: 2,
    });

  it('when an invitation is sent over SMTP with credentials in SMTP_URL, then the server receives it, authenticated', async () => {
    const m = mailer('partner:p%40ss%20word@');
    let messageId: string | undefined;
    try {
      const result = await m.send(
        { to: { name: 'Ada Lovelace', address: 'ada@example.com' }, subject: 'Your JavaScript test', text: 'Start: https://partner.test/take?token=abc', html: '<p>Start</p>' },
      );
      expect(result.message).toBeNull(); // no copy kept of what went out through SMTP
      expect(result.messageId).toMatch(/^<[0-9a-f-]{36}@partner\.test>$/); // ours, at MAIL_FROM's domain
      messageId = result.messageId;
    } finally {
      m.close();
    }
    expect(received).toHaveLength(1);
    expect(received[0]!.data).toContain(`Message-ID: ${messageId!}`);
    expect(received[0]).toMatchObject({ from: 'no-reply@partner.test', to: ['ada@example.com'], user: 'partner' });
    expect(received[0]!.data).toContain('Subject: Your JavaScript test');
    expect(received[0]!.data).toContain('https://partner.test/take?token=abc');
  });

  it('when the SMTP credentials are wrong, then sending fails and nothing is delivered', async () => {
    const before = received.length;
    const m = mailer('partner:wrong@');
    try {
      await expect(
        m.send({ to: { name: 'Ada', address: 'ada@example.com' }, subject: 'x', text: 'x', html: 'x' }),
      ).rejects.toThrow(/Invalid username or password|auth/i);
    } finally {
      m.close();
    }
    expect(received).toHaveLength(before);
  });
});

describe('the Message-ID', () => {
  it('when MAIL_FROM is a bare address on another domain, then each JSON-transport message gets an id of its own at that domain', async () => {
    const m = createMailer({ transport: 'json', smtpUrl: undefined, from: 'no-reply@acme.example', maxConnections: 1 });
    try {
      const message = { to: { name: 'Ada Lovelace', address: 'ada@example.com' }, subject: 'Your test', text: 'Start', html: '<p>Start</p>' };
      const [first, second] = [await m.send(message), await m.send(message)];
      expect(first.messageId).toMatch(/^<[0-9a-f-]{36}@acme\.example>$/);
      expect(second.messageId).not.toBe(first.messageId);
      expect((JSON.parse(first.message!) as { messageId: string }).messageId).toBe(first.messageId);
    } finally {
      m.close();
    }
  });
});
