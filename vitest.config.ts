import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

/**
 * The tests' scratch databases and folders (os.tmpdir()) on a RAM disk where there is one, unless
 * TMPDIR says otherwise: on a disk, SQLite's syncs when a database is checkpointed or closed, and
 * removing the folders, held the tests up for seconds. Nothing is asserted about durability across
 * a machine crash, which is all a RAM disk gives up.
 */
const RAM_DISK = '/dev/shm';
const scratch = process.env.TMPDIR === undefined && existsSync(RAM_DISK) ? { TMPDIR: RAM_DISK } : {};
// This process too: its global setups put the run's PostgreSQL cluster and the compiled kit there.
// On a disk, the cluster's copies of the template were written back for minutes after the run.
if (scratch.TMPDIR) process.env.TMPDIR = scratch.TMPDIR;

/**
 * The partner's tests that also run on PostgreSQL (the `postgres` project): those of the code that
 * speaks to the database — its stores, workers, callbacks, lifecycle, pages and processes — and
 * test/postgres, what only PostgreSQL allows (several instances on one database). The mock
 * platform's and the repository's have no partner database.
 */
const ON_BOTH = ['test/partner', 'test/invitations', 'test/reports', 'test/results', 'test/webhooks', 'test/pages', 'test/platforms/greenhouse', 'test/platforms/ashby', 'test/platforms/hibob', 'test/postgres'];
/**
 * Files of the folders not in ON_BOTH that run on PostgreSQL too: the conformance checker's runs
 * against the kit's Greenhouse, Ashby and HiBob routes, whose invitations, sealed keys and tokens,
 * inbox and update outbox are the database's (the other platform's conformance runs stay on SQLite).
 */
const ON_BOTH_TOO = ['test/conformance/greenhouse-kit.test.ts', 'test/conformance/ashby-kit.test.ts', 'test/conformance/hibob-kit.test.ts'];
const SQLITE_ONLY = [
  // They read SQLite itself: its files, query plans, group commit.
  'test/partner/db-open.test.ts',
  'test/partner/group-commit.test.ts',
  'test/partner/logging.test.ts',
  'test/partner/migration-outboxes.test.ts',
  'test/reports/backlog.test.ts',
  // What differs in nothing by database: settings, pure functions, and the pages as a browser
  // shows them (their queries are the stores', tested on both). On PostgreSQL they would only run
  // the same code again. The end-to-end flows (test/e2e) are not in ON_BOTH for that reason.
  'test/**/config.test.ts',
  'test/pages/*-browser.test.ts',
  'test/pages/present.test.ts',
  // The sign-in throttle counts in memory; the session is a signed cookie.
  'test/pages/sign-in-throttle.test.ts',
  'test/partner/app-server.test.ts',
  'test/partner/requests-first.test.ts',
  'test/invitations/smtp.test.ts',
  'test/reports/policy.test.ts',
  'test/webhooks/secrets.test.ts',
  'test/webhooks/signature.test.ts',
  'test/platforms/greenhouse/allowlist.test.ts',
  'test/platforms/greenhouse/credential.test.ts',
  'test/platforms/greenhouse/delivery.test.ts',
  'test/platforms/greenhouse/send-test.test.ts',
  'test/platforms/greenhouse/status.test.ts',
  'test/platforms/hibob/mapping.test.ts',
];

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts', 'src/provider/**/*.test.ts', 'examples/**/*.test.ts'], exclude: ['test/postgres/**'] } },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: [...ON_BOTH.map((dir) => `${dir}/*.test.ts`), ...ON_BOTH_TOO],
          exclude: SQLITE_ONLY,
          env: { ...scratch, TEST_DATABASE: 'postgres' },
          // Starts the throwaway PostgreSQL server the project's tests create their databases on.
          globalSetup: ['./test/global-setup.ts', './test/postgres-setup.ts'],
          // Ends, as each file ends, the connections its tests kept open for the next (test/support/database.ts).
          setupFiles: ['./test/support/postgres-file.ts'],
        },
      },
    ],
    environment: 'node',
    // Tests start real servers and child processes; two cores are all a CI machine has.
    pool: 'forks',
    maxWorkers: 2,
    // Each worker runs file after file with its modules loaded once: a fresh process per file spent
    // more of the run starting Node and loading the kit than running tests. No file leaves anything
    // for the next: no environment variable or global is changed, nothing is mocked, fake timers and
    // the umask are restored, and no server, socket or timer is left running (as
    // process.getActiveResourcesInfo() shows after each file), but the page tests' Chromium, which
    // the next page test file uses (test/support/browser.ts). What the kit keeps per module is
    // built once and not changed (templates, the OpenAPI documents, which tests clone to edit).
    isolate: false,
    env: scratch,
    // Compiles the kit once for the tests that start it as a process (test/support/compiled-kit.ts).
    globalSetup: ['./test/global-setup.ts'],
    // Outer limits, met only by a test that hangs: each test waits for events (a line logged, a port
    // open, an exit, a row), never for a time, and a machine busy with other work runs it several
    // times slower than a quiet one — which must not fail it. A file gives a test of its own a
    // lower limit only when it has a reason.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // How long a worker may take to stop before vitest says "Timeout terminating forks worker". A
    // worker leaves nothing running (only its IPC and stdio pipes are active after its last file),
    // and stops in a second alone; but one stopping while the other worker's processes hold both
    // cores waited past the default 10 s, and the message read like an error.
    teardownTimeout: 60_000,
  },
});
