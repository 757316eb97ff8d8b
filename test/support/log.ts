import { Writable } from 'node:stream';
import { createLogger } from '../../src/lib/http/logger.js';

/** A logger at info whose lines the test reads: `lines` as written, `entries` parsed. */
export function capturedLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger('info', stream), lines, entries: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}
