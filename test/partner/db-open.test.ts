import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/open.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('openDb', () => {
  it('creates the file and its folder, and opens it in WAL mode, crash-safe, with foreign keys, a lock wait, a 64 MB cache and every migration', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'db-open-'));
    dirs.push(dir);
    const db = openDb(path.join(dir, 'nested', 'partner.db'));
    const pragma = (name: string) => db.pragma(name, { simple: true });
    expect({
      journal: pragma('journal_mode'),
      synchronous: pragma('synchronous'),
      foreignKeys: pragma('foreign_keys'),
      busyTimeoutMs: pragma('busy_timeout'),
      cacheKiB: pragma('cache_size'),
    }).toEqual({ journal: 'wal', synchronous: 1, foreignKeys: 1, busyTimeoutMs: 5000, cacheKiB: -65536 });
    const latest = Math.max(...readdirSync(new URL('../../src/db/migrations/', import.meta.url)).map((f) => Number.parseInt(f, 10)));
    expect(pragma('user_version')).toBe(latest);
    db.close();
  });
});
