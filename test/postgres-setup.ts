import type { TestProject } from 'vitest/node';
import { openPartnerDatabase } from '../src/partner/db/open.js';
import { DEMO_MIGRATIONS } from '../src/partner/provider/demo/index.js';
import { startPostgres } from './support/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The throwaway PostgreSQL server of the `postgres` project (test/support/database.ts). */
    postgresUrl: string;
    /**
     * The databases of that server each test's is copied from: `kit` with the kit's migrations
     * applied (a provider's are its own), `demo` with the demo provider's after them (what the
     * kit's server applies as it starts).
     */
    postgresTemplates: Record<'kit' | 'demo', string>;
  }
}

const TEMPLATES = { kit: 'kit_template', demo: 'kit_template_demo' };

/**
 * Starts one PostgreSQL server for the `postgres` project's run; each test creates its own
 * database on it, a copy of one of two migrated here once (the migrations' own tests start from
 * an empty one). A machine without PostgreSQL fails here, loudly, in one line saying what is
 * missing and what to do, rather than skipping.
 */
export default async function setup(project: TestProject) {
  const postgres = await startPostgres().catch((err: unknown) => {
    // Vitest reports a failed global setup as "No test files found" first: say what that means.
    throw new Error(`The postgres project's tests did not run ("No test files found"), as their PostgreSQL could not start: ${(err as Error).message}`, { cause: err });
  });
  try {
    for (const [name, template] of Object.entries(TEMPLATES)) {
      const provider = name === 'demo' ? DEMO_MIGRATIONS : undefined;
      const database = await openPartnerDatabase({ databasePath: '', databaseUrl: await postgres.createDatabase(template) }, { provider });
      await database.close();
    }
  } catch (err) {
    postgres.stop();
    throw err;
  }
  project.provide('postgresUrl', postgres.url);
  project.provide('postgresTemplates', TEMPLATES);
  return () => postgres.stop();
}
