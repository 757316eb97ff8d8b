import nodemailer from 'nodemailer';
import type { Config } from '../config.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface SentMail {
  messageId: string;
  /**
   * The message as nodemailer's JSON transport rendered it (JSON text), for the outbox row to keep;
   * null when it went out through SMTP (the kit keeps no copy of what it really sent).
   */
  message: string | null;
}

export interface Mailer {
  send(message: MailMessage): Promise<SentMail>;
  close(): void;
}

const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/**
 * nodemailer with the configured transport:
 * - `json` (the default): each message is rendered by nodemailer's JSON transport and nothing is
 *   sent; the JSON text is returned as is (no parse and re-stringify) for the mail outbox to keep
 *   with the e-mail's row, where the dashboard shows it. It holds the candidate's link: it is as
 *   private as the database.
 * - `smtp`: sent through SMTP_URL, with connection, greeting and socket timeouts.
 */
export function createMailer(config: Config['mail']): Mailer {
  if (config.transport === 'smtp') {
    const transport = nodemailer.createTransport({ ...smtpOptions(config.smtpUrl!), ...SMTP_TIMEOUTS });
    return {
      async send(message) {
        const info = await transport.sendMail({ from: config.from, ...message });
        return { messageId: info.messageId, message: null };
      },
      close: () => transport.close(),
    };
  }
  const transport = nodemailer.createTransport({ jsonTransport: true });
  return {
    async send(message) {
      const info = await transport.sendMail({ from: config.from, ...message });
      return { messageId: info.messageId, message: info.message };
    },
    close: () => transport.close(),
  };
}

/** SMTP options from smtp[s]://user:pass@host:port (nodemailer would drop any other option given with `url`). */
function smtpOptions(url: string) {
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    ...(u.username && { auth: { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } }),
  };
}
