import { getPublicSuffix } from 'tldts';
import { z } from 'zod';
import { isLoopbackHost } from '../../defaults.js';

/**
 * [kit decision] Where the PATCH "the test is complete" may go (docs/greenhouse.md §4). The `url`
 * of send_test is the caller's word — anyone holding a customer key chooses it — so the partner
 * must not become a way to reach arbitrary hosts. A `url` is allowed when it is
 *
 * - `https`, on the default port, with no user name or password, on `greenhouse.io` or one of its
 *   subdomains, or on a host of GREENHOUSE_PATCH_HOSTS; or
 * - `http` or `https` on a loopback address (`localhost`, 127.0.0.0/8, `[::1]`), any port, when the
 *   partner itself can only be reached from this machine (`Config.localOnly`: the sandbox and the
 *   tests).
 *
 * Only the URL is judged, as the WHATWG parser reads it (the one undici sends with): IPv4 written
 * in decimal, octal or hex is already `127.0.0.1` there, so no IP literal can pass for a host name,
 * and `https://app.greenhouse.io@evil.example/` is a request to evil.example with a user name.
 * Host names are compared without a final dot (`localhost.` is `localhost`). The delivery checks
 * the stored `url` again before each PATCH, under the settings of the day.
 */
export const GREENHOUSE_DOMAIN = 'greenhouse.io';

/** A host of GREENHOUSE_PATCH_HOSTS: one name, or every subdomain of one (`*.example.com`). */
export type HostPattern = { kind: 'exact'; name: string } | { kind: 'subdomains'; of: string };

export interface PatchTargetRules {
  /** GREENHOUSE_PATCH_HOSTS, parsed. */
  patchHosts: readonly HostPattern[];
  /** Loopback URLs are allowed: the partner is reachable from this machine only (`Config.localOnly`). */
  loopback: boolean;
}

/** Longest `url` kept: Greenhouse's are about 80 characters. */
export const PATCH_URL_MAX_LENGTH = 2048;

/**
 * Why the PATCH may not go to `url`, as the rest of a sentence (`url …`), or undefined when it may.
 */
export function refusedPatchTarget(url: string, rules: PatchTargetRules): string | undefined {
  if (url.length > PATCH_URL_MAX_LENGTH) return `must be at most ${PATCH_URL_MAX_LENGTH} characters`;
  if (!URL.canParse(url)) return 'must be an absolute URL';
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an https URL';
  if (parsed.username !== '' || parsed.password !== '') return 'must not carry a user name or password';
  const host = parsed.hostname.replace(/\.$/, '');
  if (isLoopbackHost(host)) {
    return rules.loopback ? undefined : 'must not be a loopback address: this partner is reachable from other machines';
  }
  const allowed = isGreenhouseHost(host) || rules.patchHosts.some((p) => matches(p, host));
  if (!allowed) return `must be on ${GREENHOUSE_DOMAIN} or a host of GREENHOUSE_PATCH_HOSTS`;
  if (parsed.protocol !== 'https:') return 'must be an https URL';
  // The parser drops the scheme's default port: any port left is another service on that host.
  if (parsed.port !== '') return 'must use the default https port';
  return undefined;
}

/** Where the PATCH may go, in a line: for the home page. */
export function describePatchTargets(rules: PatchTargetRules): string {
  const hosts = rules.patchHosts.map((p) => (p.kind === 'exact' ? p.name : `*.${p.of}`));
  return [`${GREENHOUSE_DOMAIN}, *.${GREENHOUSE_DOMAIN}`, ...hosts, ...(rules.loopback ? ['loopback'] : [])].join(', ');
}

const isGreenhouseHost = (host: string) => host === GREENHOUSE_DOMAIN || host.endsWith(`.${GREENHOUSE_DOMAIN}`);

function matches(pattern: HostPattern, host: string): boolean {
  return pattern.kind === 'exact' ? host === pattern.name : host.endsWith(`.${pattern.of}`);
}

/** A DNS name of two labels or more: letters, digits and hyphens, no label starting or ending with a hyphen. */
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const isHostName = (labels: string[]) => labels.join('.').length <= 253 && labels.length >= 2 && labels.every((l) => LABEL.test(l));
/** A URL whose host ends in a number is an IPv4 address to the WHATWG parser (`0x7f.1` is 127.0.0.1). */
const isIpLiteral = (name: string) => /^\[?[0-9a-f:.]*:[0-9a-f:.]*\]?$/.test(name) || /(^|\.)(\d+|0x[0-9a-f]*)\.?$/.test(name);

/**
 * Names a machine resolves to itself besides `localhost` and the loopback addresses: `*.localhost`
 * (RFC 6761), and the aliases of distributions' /etc/hosts and of systemd-resolved
 * (`localhost.localdomain` and its subdomains, `ip6-localhost`…). None is ever a PATCH target.
 */
const LOOPBACK_ALIASES = new Set(['localhost.localdomain', 'localhost4', 'localhost4.localdomain4', 'localhost6', 'localhost6.localdomain6', 'ip6-localhost', 'ip6-loopback']);
const isLoopbackName = (name: string) =>
  isLoopbackHost(name) || LOOPBACK_ALIASES.has(name) || name.endsWith('.localhost') || name.endsWith('.localhost.localdomain');

/**
 * [kit decision] The public suffix `name` is, or undefined when it is none: `com`, `co.uk`, and
 * the suffixes of the Public Suffix List's private section too (`github.io`, `s3.amazonaws.com`),
 * whose names anyone can register. The list is the `tldts` package's, updated with it; a top-level
 * domain it does not know is a suffix all the same (its default rule).
 */
function publicSuffix(name: string): string | undefined {
  const suffix = getPublicSuffix(name, { allowPrivateDomains: true, extractHostname: false });
  return suffix === name ? suffix : undefined;
}

/** Why one entry of GREENHOUSE_PATCH_HOSTS is refused, or its pattern. */
function hostPattern(entry: string): HostPattern | string {
  const name = entry.toLowerCase();
  const wildcard = name.startsWith('*.');
  const base = wildcard ? name.slice(2) : name;
  const labels = base.split('.');
  if (isIpLiteral(base)) return `"${entry}" is an IP address: list host names only`;
  if (isLoopbackName(base)) {
    return `"${entry}" is a loopback name: remove it; loopback URLs need no entry, and are allowed only while the partner itself is reachable from this machine only (HOST and PUBLIC_URL both loopback)`;
  }
  const suffix = wildcard && labels.every((l) => LABEL.test(l)) ? publicSuffix(base) : undefined;
  if (suffix !== undefined) {
    return `"${entry}" would allow every domain under the public suffix "${suffix}", which anyone can register names under: list your own domain (*.example.${suffix})`;
  }
  if (!isHostName(labels)) {
    return `"${entry}" is not a host name (list names such as partners.example.com or *.example.com, without scheme, port or path)`;
  }
  return wildcard ? { kind: 'subdomains', of: base } : { kind: 'exact', name: base };
}

/** GREENHOUSE_PATCH_HOSTS: comma-separated host names, `*.example.com` for every subdomain of example.com. */
export const GreenhousePatchHostsSetting = z
  .string()
  .transform((value, ctx) => {
    const patterns: HostPattern[] = [];
    for (const entry of value.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
      const pattern = hostPattern(entry);
      if (typeof pattern === 'string') ctx.addIssue({ code: 'custom', message: pattern });
      else patterns.push(pattern);
    }
    return patterns;
  });
