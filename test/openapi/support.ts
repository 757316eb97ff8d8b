import { request } from 'undici';
import type { z } from 'zod';
import type { ApiOperation, ExamplePair, OpenApiDocument } from '../../src/contract/openapi/document.js';

/** One example of a document, as it was sent and answered. */
export interface ExampleRun {
  operationId: string;
  example: string;
  request: { method: string; path: string; headers: Record<string, string>; body?: string };
  expected: { status: number; schema?: z.ZodType; documented?: unknown };
  actual: { status: number; text: string; json: unknown };
}

interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: { examples?: unknown[] };
  examples?: Record<string, { value: unknown }>;
}
interface OperationObject {
  operationId: string;
  security?: Record<string, string[]>[];
  parameters?: ParameterObject[];
  requestBody?: { content: Record<string, { examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: unknown }> }> }>;
  'x-examples': ExamplePair[];
}

/** Every operation of the document, in document order. */
export function operationsOf(doc: OpenApiDocument): { path: string; method: string; op: OperationObject }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op: op as unknown as OperationObject })),
  );
}

/**
 * The request an example of the document describes: each parameter's example of that name (else,
 * for a path or required parameter, the value in its schema's `examples`), the request body's
 * example of that name, and the credentials of the operation's first security scheme unless the
 * example is anonymous.
 */
export function exampleRequest(
  doc: OpenApiDocument,
  path: string,
  method: string,
  op: OperationObject,
  pair: ExamplePair,
  credentials: Record<string, string>,
): ExampleRun['request'] {
  let url = path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const p of op.parameters ?? []) {
    const value = p.examples?.[pair.name]?.value ?? (p.in === 'path' || p.required ? p.schema.examples?.[0] : undefined);
    if (value === undefined) continue;
    if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(String(value)));
    else if (p.in === 'query') query.set(p.name, String(value));
    else headers[p.name.toLowerCase()] = String(value);
  }
  if (url.includes('{')) throw new Error(`${op.operationId}/${pair.name}: no value for a path parameter of ${path}`);
  const body = op.requestBody?.content['application/json']?.examples?.[pair.name]?.value;
  if (body !== undefined) headers['content-type'] = 'application/json';

  const scheme = Object.keys(op.security?.[0] ?? {})[0];
  if (scheme && !pair.anonymous) {
    const definition = (doc.components as { securitySchemes: Record<string, { type: string; scheme?: string; in?: string; name?: string }> })
      .securitySchemes[scheme]!;
    const value = credentials[scheme];
    if (value === undefined) throw new Error(`no credential for the security scheme ${scheme}`);
    if (definition.type === 'http' && definition.scheme === 'bearer') headers.authorization = `Bearer ${value}`;
    // A key as the user name with an empty password, as Greenhouse sends its partners' keys.
    else if (definition.type === 'http' && definition.scheme === 'basic') headers.authorization = `Basic ${Buffer.from(`${value}:`).toString('base64')}`;
    else if (definition.type === 'apiKey' && definition.in === 'header') headers[definition.name!.toLowerCase()] = value;
    else throw new Error(`security scheme ${scheme} is not one this test can send`);
  }
  const search = query.size > 0 ? `?${query}` : '';
  return { method: method.toUpperCase(), path: url + search, headers, ...(body !== undefined && { body: JSON.stringify(body) }) };
}

/**
 * Sends every example of `doc` to `baseUrl`, operation by operation in document order, and
 * returns what was sent, expected and answered. `before(operationId)` sets up what an operation's
 * examples presuppose; `credentials` may change meanwhile (it is read per request).
 */
export async function runExamples(options: {
  doc: OpenApiDocument;
  baseUrl: string;
  operations: readonly ApiOperation[];
  credentials: Record<string, string>;
  before?: (operationId: string) => Promise<void>;
}): Promise<ExampleRun[]> {
  const runs: ExampleRun[] = [];
  for (const { path, method, op } of operationsOf(options.doc)) {
    const defined = options.operations.find((o) => o.operationId === op.operationId);
    if (!defined) throw new Error(`${op.operationId} is in the document but not in the operations given`);
    await options.before?.(op.operationId);
    for (const pair of op['x-examples']) {
      const req = exampleRequest(options.doc, path, method, op, pair, options.credentials);
      const res = await request(options.baseUrl + req.path, { method: req.method as 'GET', headers: req.headers, body: req.body });
      const text = await res.body.text();
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      runs.push({
        operationId: op.operationId,
        example: pair.name,
        request: req,
        expected: {
          status: pair.status,
          schema: defined.responses[pair.status]?.schema,
          documented: op.responses[String(pair.status)]?.content?.['application/json']?.examples?.[pair.name]?.value,
        },
        actual: { status: res.statusCode, text, json },
      });
    }
  }
  return runs;
}

/**
 * A JSON value's shape: its types and object keys, recursively (an array by its first item), so
 * a documented answer and a real one compare equal when only the values differ.
 */
export function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length > 0 ? [shapeOf(value[0])] : [];
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, shapeOf((value as Record<string, unknown>)[k])]),
    );
  }
  return value === null ? 'null' : typeof value;
}

/** What is wrong with an example's answer, or undefined when it is what the document says. */
export function problemOf(run: ExampleRun): string | undefined {
  const where = `${run.operationId}/${run.example} (${run.request.method} ${run.request.path})`;
  if (run.actual.status !== run.expected.status) {
    return `${where}: answered ${run.actual.status}, documented ${run.expected.status}: ${run.actual.text.slice(0, 300)}`;
  }
  if (!run.expected.schema) {
    return run.actual.text === '' ? undefined : `${where}: documented without a body, answered ${run.actual.text.slice(0, 100)}`;
  }
  const parsed = run.expected.schema.safeParse(run.actual.json);
  if (!parsed.success) return `${where}: the answer does not match the documented schema: ${parsed.error.message}\n${run.actual.text}`;
  if (run.expected.documented !== undefined) {
    const documented = JSON.stringify(shapeOf(run.expected.documented));
    const actual = JSON.stringify(shapeOf(run.actual.json));
    if (documented !== actual) return `${where}: the answer's shape ${actual} is not the documented example's ${documented}`;
  }
  return undefined;
}
