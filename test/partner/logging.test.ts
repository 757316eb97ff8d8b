import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/http/logger.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger('info', stream) };
}

describe('log redaction', () => {
  it('when an object with credentials is logged, then tokens, secrets and authorization headers print as [redacted]', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        token: 'ptk_plain',
        secret: 's3cr3t-value',
        headers: { authorization: 'Bearer ptk_plain', 'rt-partner-secret': 's3cr3t-value', cookie: 'sid=1' },
        request: { headers: { authorization: 'Bearer ptk_plain' } },
        account: { password: 'hunter2', name: 'Acme' },
      },
      'outbound call',
    );
    const line = lines.join('');
    for (const leaked of ['ptk_plain', 's3cr3t-value', 'hunter2', 'sid=1']) expect(line).not.toContain(leaked);
    expect(JSON.parse(line)).toMatchObject({ token: '[redacted]', account: { name: 'Acme', password: '[redacted]' } });
  });
});
