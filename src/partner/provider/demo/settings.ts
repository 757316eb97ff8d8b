import { z } from 'zod';
import { ConfigError } from '../../config.js';

/** The demo provider's own settings: a fork's provider reads its own the same way. */
export interface DemoSettings {
  /** Percentage of right answers at or above which a demo test is `completed`; below it, `failed`. */
  passMark: number;
}

const DemoEnv = z.object({
  PASS_MARK: z.coerce.number().int().min(0).max(100).default(60),
});

/**
 * Reads the demo's settings from `env` (normally `process.env`, after the kit read `.env`). A bad
 * value throws the kit's `ConfigError`, so start-up stops with the same message and exit code (78).
 */
export function demoSettings(env: Record<string, string | undefined>): DemoSettings {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = DemoEnv.safeParse(present);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  return { passMark: parsed.data.PASS_MARK };
}
