import { randomBytes } from 'node:crypto';

/**
 * One-time messages carried across a POST → redirect → GET, by an unguessable id in the query
 * string (the sandbox has no sessions). A message may carry a secret shown once, such as a new
 * API token; reading it removes it.
 */
export interface Flash {
  kind: 'notice' | 'error';
  text: string;
  secret?: string;
}

const MAX_PENDING = 500;

export function flashes() {
  const pending = new Map<string, Flash>();
  return {
    put(flash: Flash): string {
      // Forget the oldest when nobody followed the redirects (Maps iterate in insertion order).
      if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value!);
      const id = randomBytes(12).toString('base64url');
      pending.set(id, flash);
      return id;
    },
    take(id: unknown): Flash | undefined {
      if (typeof id !== 'string') return undefined;
      const flash = pending.get(id);
      pending.delete(id);
      return flash;
    },
  };
}
