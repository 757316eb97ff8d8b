import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import { DEFAULT_PARTNER_INPUTS, PARTNER_SECRET_LENGTH, type PartnerKind } from '../../contract/decisions.js';
import { Partner, type PartnerRequest } from '../../contract/schemas.js';
import type { Db } from '../../lib/db.js';

type Urls = PartnerRequest['urls'];
type Inputs = NonNullable<PartnerRequest['inputs']>;

/** A partner as the platform keeps it; `Partner` (the wire shape) adds the effective inputs. */
export interface StoredPartner {
  codename: string;
  companyId: number;
  kind: PartnerKind;
  name: string;
  description: string | null;
  urls: Urls;
  /** null: the platform default (first_name, last_name, email). */
  inputs: Inputs | null;
  secret: string;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  codename: string;
  company_id: number;
  kind: PartnerKind;
  name: string;
  description: string | null;
  urls: string;
  inputs: string | null;
  secret: string;
  created_at: string;
  updated_at: string;
}

export type PartnerStore = ReturnType<typeof partnerStore>;

/** What happened to a POST of the partner record. */
export type SaveOutcome = { outcome: 'created' | 'updated'; partner: StoredPartner } | { outcome: 'taken' };

export function partnerStore(db: Db, clock: Clock) {
  const byCodename = db.prepare<[string], Row>('SELECT * FROM partners WHERE codename = ?');
  const all = db.prepare<[], Row>('SELECT * FROM partners ORDER BY name, codename');
  const insert = db.prepare(
    `INSERT INTO partners (codename, company_id, kind, name, description, urls, inputs, secret, created_at, updated_at)
     VALUES (@codename, @companyId, @kind, @name, @description, @urls, @inputs, @secret, @now, @now)`,
  );
  const update = db.prepare(
    `UPDATE partners SET kind = @kind, name = @name, description = @description, urls = @urls, inputs = @inputs,
            updated_at = @now
      WHERE codename = @codename AND company_id = @companyId`,
  );
  const remove = db.prepare<[string, number]>('DELETE FROM partners WHERE codename = ? AND company_id = ?');

  const find = (codename: string): StoredPartner | undefined => {
    const row = byCodename.get(codename);
    return row && toStored(row);
  };

  const write = (statement: typeof update, p: Omit<StoredPartner, 'secret' | 'createdAt' | 'updatedAt'>, extra = {}) =>
    statement.run({
      codename: p.codename,
      companyId: p.companyId,
      kind: p.kind,
      name: p.name,
      description: p.description,
      urls: JSON.stringify(p.urls),
      inputs: p.inputs === null ? null : JSON.stringify(p.inputs),
      now: isoAt(clock.now()),
      ...extra,
    });

  return {
    find,
    list: (): StoredPartner[] => all.all().map(toStored),

    /** The partner when it belongs to `companyId`; another company's partner is treated as unknown. */
    findOwned(codename: string, companyId: number): StoredPartner | undefined {
      const partner = find(codename);
      return partner?.companyId === companyId ? partner : undefined;
    },

    /**
     * POST semantics (§3.1): creates the record, or replaces it when the same company posts its own
     * codename again. The secret and created_at survive an update.
     */
    save(codename: string, companyId: number, request: PartnerRequest): SaveOutcome {
      return db.transaction((): SaveOutcome => {
        const existing = find(codename);
        if (existing && existing.companyId !== companyId) return { outcome: 'taken' };
        const fields = {
          codename,
          companyId,
          kind: request.kind,
          name: request.name,
          description: request.description ?? null,
          urls: request.urls,
          inputs: request.inputs ?? null,
        };
        if (existing) write(update, fields);
        else write(insert, fields, { secret: generateSecret() });
        return { outcome: existing ? 'updated' : 'created', partner: find(codename)! };
      })();
    },

    /** PATCH semantics: absent fields stay, `urls` merges key by key. */
    patch(partner: StoredPartner, changes: Partial<Omit<PartnerRequest, 'urls'>> & { urls?: Partial<Urls> }): StoredPartner {
      write(update, {
        codename: partner.codename,
        companyId: partner.companyId,
        kind: changes.kind ?? partner.kind,
        name: changes.name ?? partner.name,
        description: changes.description ?? partner.description,
        urls: { ...partner.urls, ...stripUndefined(changes.urls ?? {}) },
        inputs: changes.inputs ?? partner.inputs,
      });
      return find(partner.codename)!;
    },

    remove: (partner: StoredPartner): boolean => remove.run(partner.codename, partner.companyId).changes === 1,

    /**
     * The partner whose secret `presented` is, for the codename in the path. Both sides are hashed
     * first so the comparison is constant-time and independent of the presented length.
     */
    authenticateSecret(codename: string, presented: string): StoredPartner | undefined {
      const partner = find(codename);
      const expected = sha256(partner?.secret ?? generateSecret());
      return timingSafeEqual(sha256(presented), expected) && partner ? partner : undefined;
    },
  };
}

/** The wire shape (§3.1), with the inputs the platform will actually use. */
export function toWire(p: StoredPartner): Partner {
  return Partner.parse({
    codename: p.codename,
    company_id: p.companyId,
    kind: p.kind,
    name: p.name,
    ...(p.description !== null && { description: p.description }),
    urls: p.urls,
    inputs: effectiveInputs(p),
    secret: p.secret,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  });
}

export function effectiveInputs(p: Pick<StoredPartner, 'inputs'>): Inputs {
  return p.inputs ?? DEFAULT_PARTNER_INPUTS.map((i) => ({ ...i }));
}

/** A random secret of PARTNER_SECRET_LENGTH base64url characters (6 bits each). */
function generateSecret(): string {
  return randomBytes(Math.ceil((PARTNER_SECRET_LENGTH * 3) / 4))
    .toString('base64url')
    .slice(0, PARTNER_SECRET_LENGTH);
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function toStored(r: Row): StoredPartner {
  return {
    codename: r.codename,
    companyId: r.company_id,
    kind: r.kind,
    name: r.name,
    description: r.description,
    urls: JSON.parse(r.urls) as Urls,
    inputs: r.inputs === null ? null : (JSON.parse(r.inputs) as Inputs),
    secret: r.secret,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
