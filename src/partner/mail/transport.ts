import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config.js';
import { isBareAddress } from './address.js';

export interface MailMessage {
  /**
   * One recipient, structured: nodemailer encodes the name as a name, whatever it holds. A text
   * "Name <address>" would be parsed as an address list, and a name with a comma and an address in
   * it would add a recipient.
   */
  to: { name: string; address: string };
  /** One line: `oneLine` it if it holds anything that came from outside. */
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
  /** Who the transport sent it to (the SMTP envelope): the one recipient's address. */
  envelope: { from: string; to: string[] };
}

export interface Mailer {
  send(message: MailMessage): Promise<SentMail>;
  close(): void;
}

const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };
/** A pooled connection is replaced after this many messages (some servers limit messages per connection). */
const SMTP_MESSAGES_PER_CONNECTION = 100;

/**
 * nodemailer with the configured transport, loaded with the first e-mail rather than at start:
 * its import is 40 ms or so of the partner's start-up and 4 MB of its idle memory.
 * - `json` (the default): each message is rendered by nodemailer's JSON transport and nothing is
 *   sent; the JSON text is returned as is (no parse and re-stringify) for the mail outbox to keep
 *   with the e-mail's row, where the dashboard shows it. It holds the candidate's link: it is as
 *   private as the database.
 * - `smtp`: sent through SMTP_URL over a pool of at most `maxConnections` connections (SMTP_MAX_CONNECTIONS),
 *   each kept open for many messages, with connection, greeting and socket timeouts.
 */
export function createMailer(config: Config['mail']): Mailer {
  const server = config.transport === 'smtp' ? smtpOptions(config.smtpUrl!) : undefined;
  let loading: Promise<Transporter> | undefined;
  const transport = () =>
    (loading ??= import('nodemailer').then(({ default: nodemailer }) =>
      server
        ? nodemailer.createTransport({
            ...server,
            ...SMTP_TIMEOUTS,
            pool: true,
            maxConnections: config.maxConnections,
            maxMessages: SMTP_MESSAGES_PER_CONNECTION,
            // The connection without Nagle's algorithm, which otherwise holds the last bytes of each
            // message until the server acknowledges the ones before — and servers delay that
            // acknowledgement (40 ms on Linux): 45 ms per e-mail on loopback, 11 without. nodemailer
            // carries on from here as with its own socket (implicit TLS and STARTTLS included).
            getSocket: (_options, callback) => callback(null, { connection: net.connect({ host: server.host, port: server.port }).setNoDelay(true) }),
          })
        : nodemailer.createTransport({ jsonTransport: true }),
    ));
  return {
    async send(message) {
      const options = mailOptions(config.from, message);
      const info = (await (await transport()).sendMail(options)) as { messageId: string; message?: string; envelope: { from: string | false; to: string[] } };
      // The JSON transport's rendering is kept (SentMail.message); SMTP's message went to the server.
      return { messageId: info.messageId, message: server ? null : (info.message ?? null), envelope: envelopeOf(info.envelope) };
    },
    close: () => void loading?.then((t) => t.close()),
  };
}

/** Text for a header, on one line: control characters (CR, LF, tab…) and line separators become spaces. */
export function oneLine(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ').trim();
}


/**
 * What nodemailer is given: one structured recipient, headers on one line whatever the caller
 * passed, and a Message-ID of our own, as nodemailer asks ("You really should define your own
 * Message-Id field!"): it would draw five random numbers for one, a tenth of the JSON transport's
 * cost, where randomUUID comes from a buffer.
 */
function mailOptions(from: string, message: MailMessage) {
  if (!isBareAddress(message.to.address)) throw new Error('the recipient is not a single e-mail address');
  return {
    ...message,
    from,
    messageId: `<${randomUUID()}@${domainOf(from)}>`,
    to: { name: oneLine(message.to.name), address: message.to.address },
    subject: oneLine(message.subject),
  };
}

/** The domain of MAIL_FROM's address (config.ts checked it holds exactly one). */
const domainOf = (from: string): string => /@([^\s<>@]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';

function envelopeOf(envelope: { from: string | false; to: string[] }): SentMail['envelope'] {
  return { from: envelope.from || '', to: envelope.to };
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
