import { afterEach, describe, expect, it } from 'vitest';
import { smtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { flowHarness, sendBody } from './support.js';

describe('sending through a pool of SMTP connections', () => {
  let sink: SmtpSink | undefined;
  afterEach(() => sink?.close());

  it('when a slow SMTP server has e-mails to take, then they go out several at once over at most SMTP_MAX_CONNECTIONS reused connections', async () => {
    sink = await smtpSink({ delayMs: 150 });
    const h = await flowHarness({ env: { MAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url, SMTP_MAX_CONNECTIONS: '3' } });
    try {
      const c = await h.customer('Acme', ['SQL basics']);
      for (let i = 0; i < 12; i++) await h.send(c.token, sendBody(c.tests[0]!.id, { email: `candidate-${i}@example.com` }));
      await h.starter.runOnce();
      await h.platformAccepts();
      expect(await h.sender.runOnce()).toMatchObject({ sent: 12 });

      expect(new Set(sink.recipients).size).toBe(12);
      // More than one at a time (the server saw them side by side, which a busy machine's clock
      // could not tell), never more than the pool's bound, and the connections are reused.
      expect(sink.maxMessagesInFlight()).toBeGreaterThan(1);
      expect(sink.maxMessagesInFlight()).toBeLessThanOrEqual(3);
      expect(sink.maxOpen()).toBeGreaterThan(1);
      expect(sink.maxOpen()).toBeLessThanOrEqual(3);
      expect(sink.connections()).toBeLessThanOrEqual(3);
      expect((await h.rows("SELECT status FROM mail_outbox")).every((r) => r.status === 'sent')).toBe(true);
    } finally {
      await h.close();
    }
  });
});
