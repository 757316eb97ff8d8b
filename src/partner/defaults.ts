/**
 * The partner's defaults, shared by every entry point that reads the same variables (the server's
 * config, `npm run register`, `npm run dev`), so a key left unset means the same thing everywhere.
 */
export const PARTNER_DEFAULTS = {
  HOST: '127.0.0.1',
  PORT: 3000,
  DATABASE_PATH: './data/partner.db',
  /** The bundled mock platform (`npm run mock`). */
  PLATFORM_URL: 'http://127.0.0.1:4000',
  PARTNER_CODENAME: 'demo-assessments',
} as const;

/**
 * Where the platform and candidates reach the partner server: PUBLIC_URL when set, else the
 * address it listens on (http://HOST:PORT), without a trailing slash.
 */
export function publicUrlOf(env: { PUBLIC_URL?: string; HOST?: string; PORT?: string | number }): string {
  if (env.PUBLIC_URL) return env.PUBLIC_URL.replace(/\/+$/, '');
  const host = env.HOST || PARTNER_DEFAULTS.HOST;
  const port = env.PORT === undefined || env.PORT === '' ? PARTNER_DEFAULTS.PORT : env.PORT;
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}

/** Whether `host` (a HOST to listen on, or a URL's hostname) is this machine only: localhost, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return name === 'localhost' || name === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}
