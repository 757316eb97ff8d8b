import type { Clock } from '../lib/clock.js';
import { isoAt } from '../lib/clock.js';
import type { Db } from '../lib/db.js';

export interface MockMail {
  companyId: number | null;
  /** One bare address (no name, no list): anything else is refused. */
  to: string;
  subject: string;
  body: string;
  /** What the mail is about, e.g. "application_confirmation", "webhook_failure". */
  kind: string;
}

export interface MailRecord extends MockMail {
  id: number;
  createdAt: string;
}

/** something@somewhere, with nothing that could start a second address or a header. */
const BARE_ADDRESS = /^[^\s<>,;:"()[\]\\@]+@[^\s<>,;:"()[\]\\@]+$/u;

/**
 * The mock platform's outbox: records what the real platform would e-mail, to one recipient each,
 * with the subject on one line (offer titles and webhook names are what users typed).
 */
export function mailLog(db: Db, clock: Clock) {
  const insert = db.prepare(
    'INSERT INTO mail_log (company_id, to_address, subject, body, kind, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const all = db.prepare<[], { id: number; company_id: number | null; to_address: string; subject: string; body: string; kind: string; created_at: string }>(
    'SELECT * FROM mail_log ORDER BY id',
  );
  return {
    send(mail: MockMail): void {
      if (!BARE_ADDRESS.test(mail.to)) throw new Error(`mail_log: not a single e-mail address: ${JSON.stringify(mail.to)}`);
      const subject = mail.subject.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ').trim();
      insert.run(mail.companyId, mail.to, subject, mail.body, mail.kind, isoAt(clock.now()));
    },
    list(): MailRecord[] {
      return all.all().map((r) => ({
        id: r.id,
        companyId: r.company_id,
        to: r.to_address,
        subject: r.subject,
        body: r.body,
        kind: r.kind,
        createdAt: r.created_at,
      }));
    },
  };
}
export type MailLog = ReturnType<typeof mailLog>;
