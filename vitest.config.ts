import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Tests start real servers and child processes; two cores are all a CI machine has.
    pool: 'forks',
    maxWorkers: 2,
    // Each worker runs file after file with its modules loaded once: a fresh process per file spent
    // more of the run starting Node and loading the kit than running tests. No file leaves anything
    // for the next: no environment variable or global is changed, nothing is mocked, fake timers and
    // the umask are restored, and no server, socket or timer is left running (as
    // process.getActiveResourcesInfo() shows after each file). What the kit keeps per module is
    // built once and not changed (templates, the OpenAPI documents, which tests clone to edit).
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
