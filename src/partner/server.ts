import { isEntryPoint } from '../lib/cli.js';
import type { Config } from './config.js';
import { runPartner, startPartner, type MainOverrides } from './index.js';
import { demoProvider } from './provider/demo/index.js';

/**
 * The server this kit ships (`npm start`, `npm run dev`): the partner with the demo provider. A
 * fork passes its own provider here instead (docs/adapting.md); the accounts CLI reads it from
 * here too, to add tests to a customer's catalog.
 */
export const provider = demoProvider();

export type { MainOverrides };

/** The shipped server with `config` (tests, `npm run dev`). */
export const main = (config: Config, overrides: MainOverrides = {}) => startPartner({ config, provider, overrides });

if (isEntryPoint(import.meta.url)) await runPartner({ provider });
