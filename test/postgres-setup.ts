import type { TestProject } from 'vitest/node';
import { openPartnerDatabase } from '../src/partner/db/open.js';
import { startPostgres } from './support/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The throwaway PostgreSQL server of the `postgres` project (test/support/database.ts). */
    postgresUrl: string;
    /** A database of that server with the kit's migrations applied (a provider's are its own), which each test's is copied from. */
    postgresTemplate: string;
  }
}

const TEMPLATE = 'kit_template';

/**
 * Starts one PostgreSQL server for the `postgres` project's run; each test creates its own
 * database on it, a copy of one migrated here once (the migrations' own tests start from an empty
 * one). A machine without PostgreSQL fails here, loudly, rather than skipping.
 */
export default async function setup(project: TestProject) {
  const postgres = await startPostgres();
  try {
    const database = await openPartnerDatabase({ databasePath: '', databaseUrl: await postgres.createDatabase(TEMPLATE) });
    await database.close();
  } catch (err) {
    postgres.stop();
    throw err;
  }
  project.provide('postgresUrl', postgres.url);
  project.provide('postgresTemplate', TEMPLATE);
  return () => postgres.stop();
}
