import { describe, expect, it } from 'vitest';
import { mailLog } from '../../src/mock-platform/mail.js';
import { openMockDb } from '../../src/mock-platform/db.js';
import { fakeClock } from '../support/partner.js';

describe("the mock platform's mail log", () => {
  const logOf = () => {
    const db = openMockDb();
    return { db, mail: mailLog(db, fakeClock()) };
  };

  it('when a recipient is an address list or a named address, then nothing is recorded', () => {
    const { db, mail } = logOf();
    try {
      for (const to of ['Eve <eve@evil.test>, ada@example.com', 'ada@example.com, eve@evil.test', 'Ada <ada@example.com>', 'ada@example.com\r\nBcc: eve@evil.test']) {
        expect(() => mail.send({ companyId: null, to, subject: 'Hi', body: 'Hi', kind: 'application_confirmation' })).toThrow(/single e-mail address/);
      }
      expect(mail.list()).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('when a subject holds line breaks (an offer title, a webhook name), then it is recorded on one line', () => {
    const { db, mail } = logOf();
    try {
      mail.send({ companyId: null, to: 'ada@example.com', subject: 'Your application for Dev\r\nBcc: eve@evil.test', body: 'a\nb', kind: 'application_confirmation' });
      expect(mail.list()).toMatchObject([{ to: 'ada@example.com', subject: 'Your application for Dev Bcc: eve@evil.test', body: 'a\nb' }]);
    } finally {
      db.close();
    }
  });
});
