import { badRequest } from '../../lib/errors.js';

/**
 * Turns the fields of an application — multipart/form-data parts with bracketed names, or the
 * top-level keys of a JSON body — into one nested object, so that both encodings are validated by
 * the same schema.
 *
 * Names follow the Rails convention the platform uses (platform-contract.md §7.4):
 * - `candidate[name]` nests: `{candidate: {name}}`; `%5B` and `%5D` (any case) are read as `[`
 *   and `]`, because the interface document tells form-data clients to escape them, and raw brackets work too;
 * - `…[answers][0][id]`: a container whose keys are all indices becomes an array ordered by index
 *   (gaps closed), which is also how a JSON object like `{"0": {…}, "1": {…}}` is read;
 * - `…[multi_content][]` appends to a list;
 * - a name sent twice collects its values into an array (the schema then says what it expected).
 *
 * Values are kept as they are (strings from forms; any JSON value; uploaded files). A malformed name
 * or one that is used both as a value and as a container is a 400.
 */
export function nestFields(entries: Iterable<readonly [string, unknown]>): Record<string, unknown> {
  const root: MapNode = { t: 'map', children: new Map() };
  for (const [name, value] of entries) {
    const { keys, append } = splitFieldName(name);
    insert(root, keys, append, value, name);
  }
  return toValue(root) as Record<string, unknown>;
}

/** A field name's keys: `a[b][0][]` → keys a, b, 0 and append. */
export function splitFieldName(name: string): { keys: string[]; append: boolean } {
  const decoded = name.replace(/%5B/gi, '[').replace(/%5D/gi, ']');
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(decoded);
  if (!match) throw badRequest(`Malformed field name "${name}"`);
  const keys = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)];
  const append = keys.at(-1) === '';
  if (append) keys.pop();
  if (keys.includes('')) throw badRequest(`Malformed field name "${name}": "[]" may only end a name`);
  if (keys.length > MAX_DEPTH) throw badRequest(`Field name "${name}" is nested too deeply`);
  for (const key of keys) checkKey(key, name);
  return { keys, append };
}

type Node = LeafNode | ListNode | MapNode;
interface LeafNode {
  t: 'leaf';
  values: unknown[];
}
interface ListNode {
  t: 'list';
  items: Node[];
}
interface MapNode {
  t: 'map';
  children: Map<string, Node>;
}

const MAX_DEPTH = 8;
/** Keys that would reach an object's prototype once the tree is turned back into objects. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor']);
const INDEX_KEY = /^\d{1,6}$/;

function checkKey(key: string, name: string): void {
  if (FORBIDDEN_KEYS.has(key)) throw badRequest(`Field name "${name}" is not allowed`);
}

function insert(root: MapNode, keys: string[], append: boolean, value: unknown, name: string): void {
  let node = root;
  for (const key of keys.slice(0, -1)) {
    const child = node.children.get(key);
    if (child === undefined) {
      const created: MapNode = { t: 'map', children: new Map() };
      node.children.set(key, created);
      node = created;
    } else if (child.t === 'map') {
      node = child;
    } else {
      throw conflicting(name);
    }
  }
  const last = keys.at(-1)!;
  const incoming = fromValue(value, name, keys.length);
  const existing = node.children.get(last);
  if (append) {
    if (existing === undefined) node.children.set(last, { t: 'list', items: [incoming] });
    else if (existing.t === 'list') existing.items.push(incoming);
    else throw conflicting(name);
  } else if (existing === undefined) {
    node.children.set(last, incoming);
  } else {
    node.children.set(last, merge(existing, incoming, name));
  }
}

/** JSON objects become map nodes so bracketed names can nest into them; everything else is a leaf. */
function fromValue(value: unknown, name: string, depth: number): Node {
  if (depth > MAX_DEPTH * 2) throw badRequest(`Field "${name}" is nested too deeply`);
  if (Array.isArray(value)) return { t: 'list', items: value.map((v) => fromValue(v, name, depth + 1)) };
  if (isPlainObject(value)) {
    const children = new Map<string, Node>();
    for (const [key, v] of Object.entries(value)) {
      checkKey(key, name);
      children.set(key, fromValue(v, name, depth + 1));
    }
    return { t: 'map', children };
  }
  return { t: 'leaf', values: [value] };
}

function merge(a: Node, b: Node, name: string): Node {
  if (a.t === 'leaf' && b.t === 'leaf') return { t: 'leaf', values: [...a.values, ...b.values] };
  if (a.t === 'list' && b.t === 'list') return { t: 'list', items: [...a.items, ...b.items] };
  if (a.t === 'map' && b.t === 'map') {
    for (const [key, child] of b.children) {
      const existing = a.children.get(key);
      a.children.set(key, existing === undefined ? child : merge(existing, child, name));
    }
    return a;
  }
  throw conflicting(name);
}

function toValue(node: Node): unknown {
  switch (node.t) {
    case 'leaf':
      return node.values.length === 1 ? node.values[0] : node.values;
    case 'list':
      return node.items.map(toValue);
    case 'map': {
      const keys = [...node.children.keys()];
      if (keys.length > 0 && keys.every((k) => INDEX_KEY.test(k))) {
        return keys.sort((x, y) => Number(x) - Number(y)).map((k) => toValue(node.children.get(k)!));
      }
      const out: Record<string, unknown> = {};
      for (const [key, child] of node.children) out[key] = toValue(child);
      return out;
    }
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

const conflicting = (name: string) =>
  badRequest(`Field "${name}" is used both as a value and as a group of fields`);
