import { readFileSync } from 'node:fs';
import { PartnerRequest } from './schemas.js';

/**
 * A partner manifest (scripts/partner-manifest.json): the partner record of §3.1 as a file, where
 * `${PUBLIC_URL}` stands for the address the platform reaches the partner at. Read by
 * `npm run register` to register the partner, and by `npm run conformance` to learn which
 * callback URLs to check.
 */
export class ManifestError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ManifestError';
  }
}

export interface Manifest {
  partner: PartnerRequest;
  /** An optional `codename` key: the record itself does not carry one (it is in the URL). */
  codename?: string;
}

/**
 * The manifest with `${PUBLIC_URL}` replaced, validated as the partners API will validate it, so
 * a mistake is reported before anything is sent. Throws a ManifestError naming every problem.
 */
export function readManifest(file: string, publicUrl: string): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ManifestError([`${file}: ${(err as Error).message}`]);
  }
  const base = publicUrl.replace(/\/+$/, '');
  const unknownPlaceholders = new Set<string>();
  const resolved = JSON.parse(JSON.stringify(raw), (_key, value: unknown) => {
    if (typeof value !== 'string') return value;
    return value.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
      if (name === 'PUBLIC_URL') return base;
      unknownPlaceholders.add(whole);
      return whole;
    });
  }) as unknown;
  const problems = [...unknownPlaceholders].map((p) => `${file}: unknown placeholder ${p} (only \${PUBLIC_URL} is replaced)`);
  const parsed = PartnerRequest.safeParse(resolved);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${file}: ${issue.path.join('.') || '(root)'} ${issue.message}`);
  }
  if (problems.length > 0 || !parsed.success) throw new ManifestError(problems);
  const codename = (resolved as { codename?: unknown }).codename;
  return { partner: parsed.data, ...(typeof codename === 'string' && { codename }) };
}
