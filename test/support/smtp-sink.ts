import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SinkOptions {
  /** How long the server takes to accept each message once it has its data. */
  delayMs?: number;
  /** Messages after this many are received but never accepted: the sending connection hangs. */
  hangAfter?: number;
}

/**
 * An SMTP server on loopback that counts what it receives: each message's recipients, the
 * connections open at once (and the most seen together). A message counts as received once its
 * data has arrived, before the server accepts it: a sender that dies while waiting for the
 * answer may well have delivered it.
 */
export async function smtpSink(options: SinkOptions = {}) {
  const recipients: string[] = [];
  const messages: string[] = [];
  let open = 0;
  let maxOpen = 0;
  let connections = 0;
  let messagesInFlight = 0;
  let maxMessagesInFlight = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    closeTimeout: 100,
    onConnect(_session, callback) {
      connections += 1;
      open += 1;
      maxOpen = Math.max(maxOpen, open);
      callback();
    },
    onClose() {
      open -= 1;
    },
    onData(stream, session, callback) {
      messagesInFlight += 1;
      maxMessagesInFlight = Math.max(maxMessagesInFlight, messagesInFlight);
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        recipients.push(...session.envelope.rcptTo.map((r) => r.address));
        messages.push(Buffer.concat(chunks).toString('utf8'));
        if (options.hangAfter !== undefined && recipients.length > options.hangAfter) return; // never answered
        setTimeout(() => {
          messagesInFlight -= 1;
          callback();
        }, options.delayMs ?? 0);
      });
    },
  });
  // A sender that dies mid-message resets its connection: that is the sender's failure, not the sink's.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    /** Every recipient of every message received, in order, duplicates included. */
    recipients,
    /** Every message received, as sent (headers and MIME body), in order, duplicates included. */
    messages,
    open: () => open,
    /** The most connections open at once. */
    maxOpen: () => maxOpen,
    /** Connections made so far. */
    connections: () => connections,
    /** The most messages the server was working on at once (data received, not yet answered). */
    maxMessagesInFlight: () => maxMessagesInFlight,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type SmtpSink = Awaited<ReturnType<typeof smtpSink>>;
