import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, ON_POSTGRES } from '../support/database.js';
import { kitProcess, startPartnerProcess } from '../support/net.js';

/**
 * What the started partner has loaded, as `npm start` runs it: a library it loads costs start-up
 * time and idle memory whether it is used or not (docs/performance.md, "What the platforms cost").
 * The process is started with a preload that writes, as it exits, the CommonJS modules it loaded
 * (`require.cache`, which holds a package imported from ESM too).
 */
describe('the modules the started partner loads', () => {
  let dir: string;
  let loaded: string[];
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'partner-modules-'));
    const probe = path.join(dir, 'probe.cjs');
    const list = path.join(dir, 'loaded.json');
    writeFileSync(probe, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, JSON.stringify(Object.keys(require.cache))));\n`);
    const server = startPartnerProcess({ ...(await freshDatabase(dir)), DATABASE_PATH: path.join(dir, 'partner.db') }, ['--require', probe, ...kitProcess('src/partner/server.ts')]);
    const port = await server.port;
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    loaded = JSON.parse(readFileSync(list, 'utf8')) as string[];
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const fromPackage = (name: string) => loaded.some((file) => file.includes(`${path.sep}node_modules${path.sep}${name}${path.sep}`));

  it('when it runs on SQLite, then it has not loaded pg, and has loaded better-sqlite3', { skip: ON_POSTGRES }, () => {
    expect(fromPackage('better-sqlite3')).toBe(true);
    expect(fromPackage('pg')).toBe(false);
  });

  it('when it runs on PostgreSQL, then it has loaded pg', { skip: !ON_POSTGRES }, () => {
    expect(fromPackage('pg')).toBe(true);
  });
});
