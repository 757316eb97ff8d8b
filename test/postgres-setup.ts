import type { TestProject } from 'vitest/node';
import { startPostgres } from './support/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The throwaway PostgreSQL server of the `postgres` project (test/support/database.ts). */
    postgresUrl: string;
  }
}

/**
 * Starts one PostgreSQL server for the `postgres` project's run; each test creates its own
 * database on it. A machine without PostgreSQL fails here, loudly, rather than skipping.
 */
export default async function setup(project: TestProject) {
  const postgres = await startPostgres();
  project.provide('postgresUrl', postgres.url);
  return () => postgres.stop();
}
