import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  /** Sends one message; `ref` names it (the JSON transport's file name, so it must be unique). */
  send(message: MailMessage, ref: string): Promise<{ messageId: string; file: string | null }>;
  close(): void;
}

const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/**
 * nodemailer with the configured transport:
 * - `json` (the default): each message is rendered by nodemailer's JSON transport and written to
 *   MAIL_DIR as one file, readable in the dashboard and by tests. Files are 0600: they hold the
 *   candidate's link.
 * - `smtp`: sent through SMTP_URL, with connection, greeting and socket timeouts.
 */
export function createMailer(config: Config['mail']): Mailer {
  if (config.transport === 'smtp') {
    const transport = nodemailer.createTransport({ ...smtpOptions(config.smtpUrl!), ...SMTP_TIMEOUTS });
    return {
      async send(message) {
        const info = await transport.sendMail({ from: config.from, ...message });
        return { messageId: info.messageId, file: null };
      },
      close: () => transport.close(),
    };
  }
  const transport = nodemailer.createTransport({ jsonTransport: true });
  return {
    async send(message, ref) {
      const info = await transport.sendMail({ from: config.from, ...message });
      mkdirSync(config.dir, { recursive: true });
      const file = path.join(config.dir, `${ref.replace(/[^\w-]/g, '_')}.json`);
      writeFileSync(file, JSON.stringify(JSON.parse(info.message as unknown as string), null, 2) + '\n', { mode: 0o600 });
      return { messageId: info.messageId, file };
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
