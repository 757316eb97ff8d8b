import helmet, { type HelmetOptions } from 'helmet';

/**
 * The headers `helmet(options)` sets, computed once. The callbacks are the hot path and write
 * their headers in one `writeHead`; running helmet's thirteen middlewares on every call would cost
 * more than the callback itself. Capturing helmet's own output (rather than listing headers by
 * hand) keeps the callbacks' headers identical to every other route's.
 *
 * Only for static policies: a CSP with per-request nonces cannot be captured.
 */
export function helmetHeaders(options?: Readonly<HelmetOptions>): readonly string[] {
  const headers: string[] = [];
  const fake = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.push(name, String(value));
    },
    removeHeader() {},
  };
  let called = false;
  helmet(options)({} as never, fake as never, () => {
    called = true;
  });
  if (!called) throw new Error('helmet did not finish synchronously; its headers cannot be captured');
  return Object.freeze(headers);
}
