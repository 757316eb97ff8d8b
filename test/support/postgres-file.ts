import { afterAll } from 'vitest';
import { endKeptConnections } from './database.js';

// Run before each file of the `postgres` project (vitest.config.ts): the connections its tests
// kept open from one test to the next (test/support/database.ts) are ended as the file ends, so
// that no file leaves a socket open for the next file of its worker.
afterAll(endKeptConnections);
