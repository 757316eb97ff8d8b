import { z } from 'zod';
import { GreenhousePatchHostsSetting } from './allowlist.js';

/** Greenhouse's settings (.env.example, docs/configuration.md, docs/greenhouse.md §4). */
export const GreenhouseSettings = z
  .object({
    /** Hosts besides greenhouse.io and its subdomains that Greenhouse's send_test may name as the PATCH's url (docs/greenhouse.md §4). */
    GREENHOUSE_PATCH_HOSTS: z.string().default('').pipe(GreenhousePatchHostsSetting),
  })
  .transform((s) => ({ patchHosts: s.GREENHOUSE_PATCH_HOSTS }));
export type GreenhouseSettings = z.output<typeof GreenhouseSettings>;
