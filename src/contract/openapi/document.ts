import { z } from 'zod';

/**
 * OpenAPI 3.1 documents built from the zod schemas the servers validate with (zod 4's
 * `z.toJSONSchema`, JSON Schema 2020-12, which is OpenAPI 3.1's dialect). An API is a list of
 * `ApiOperation`s, each written once, next to the schemas it takes from `src/contract/schemas.ts`
 * or from the routes that define them; the document is generated from that list and never edited
 * by hand.
 *
 * Examples are runnable: each `ApiExample` is a request (parameter values and a body) and the
 * status it is answered with. In the document a request example appears under its name in the
 * parameters' and the request body's `examples`, its answer under the same name in the response's
 * `examples`, and the operation's `x-examples` lists the pairs (name → status), so a tool (the
 * test in test/openapi/) can send every example to a running server and check the answer.
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  description: string;
  schema: z.ZodType;
  /** Path parameters are always required. */
  required?: boolean;
  /** The value an example takes when it names no value of its own. */
  example: string | number;
}

export interface ApiResponse {
  description: string;
  /** The JSON body of the answer; absent: no body (204). Tests parse real answers with it. */
  schema?: z.ZodType;
  /** The declared type of that body, when it is not application/json (a JSON text sent as text/plain). */
  contentType?: string;
}

export interface ApiExample {
  /** The example's key in the document: lowercase letters, digits and "_". */
  name: string;
  summary: string;
  /** Parameter values by parameter name; the others take the parameter's `example`. */
  params?: Record<string, string | number>;
  /** The JSON request body. */
  body?: unknown;
  /** Sent without the operation's credentials (the examples of a 401). */
  anonymous?: boolean;
  /** The status this request is answered with; one of the operation's responses. */
  status: number;
  /** The documented answer (JSON); it must match the response's schema. */
  response?: unknown;
}

export interface ApiOperation {
  operationId: string;
  method: HttpMethod;
  /** An OpenAPI path template: `/callbacks/reports/{report_id}/cancel`. */
  path: string;
  summary: string;
  /** Markdown; cite platform-contract.md by section. */
  description: string;
  tags: string[];
  /** Names of security schemes, any one of which authenticates; absent: no credentials. */
  security?: string[];
  parameters?: ApiParameter[];
  /**
   * `contentTypes`: the media types the body may be sent as, each described by `schema` (default:
   * JSON alone). The examples are JSON bodies.
   */
  requestBody?: { schema: z.ZodType; description?: string; required?: boolean; contentTypes?: string[] };
  responses: Record<number, ApiResponse>;
  examples: ApiExample[];
}

export interface ApiDefinition {
  info: { title: string; version: string; description: string };
  servers?: { url: string; description?: string }[];
  tags?: { name: string; description: string }[];
  securitySchemes?: Record<string, Record<string, unknown>>;
  operations: readonly ApiOperation[];
}

/** An OpenAPI 3.1 document as plain JSON. */
export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
};

/** What `x-examples` holds for each runnable example. */
export interface ExamplePair {
  name: string;
  summary: string;
  status: number;
  anonymous?: boolean;
}

const JSON_TYPE = 'application/json';

/**
 * A zod schema as an OpenAPI 3.1 schema object. Requests are described as the server reads them
 * (`io: 'input'`: ids as number or string, unknown keys tolerated), answers as it writes them.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override: io === 'input' ? ({ zodSchema, jsonSchema }) => sayNotBlank(zodSchema, jsonSchema) : undefined,
  }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/**
 * [kit decision] What "not blank" reads as in a document: a string with a non-space character
 * (`pattern: "\\S"`, unanchored). A server that trims a field before checking its minimum length
 * refuses "  " although `minLength: 1` allows it; the pattern says so, for the raw value a client
 * sends, wherever a schema trims first — the contract's, a route's own, and any added later.
 */
export const NOT_BLANK_PATTERN = '\\S';

interface CheckDef {
  check: string;
  minimum?: number;
  tx?: (value: string) => unknown;
}

function sayNotBlank(zodSchema: unknown, json: Record<string, unknown>): void {
  const def = (zodSchema as { _zod: { def: { type: string; checks?: { _zod: { def: CheckDef } }[] } } })._zod.def;
  if (def.type !== 'string') return;
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  const trims = checks.findIndex((c) => c.check === 'overwrite' && c.tx?.(' \t x \n') === 'x');
  const min = checks.findIndex((c) => c.check === 'min_length' && (c.minimum ?? 0) >= 1);
  if (trims === -1 || min < trims) return;
  if (json.pattern === undefined && json.allOf === undefined) {
    json.pattern = NOT_BLANK_PATTERN;
    return;
  }
  // A schema of several patterns lists each under allOf, as zod writes them.
  const patterns = json.pattern === undefined ? [] : [{ pattern: json.pattern }];
  delete json.pattern;
  json.allOf = [...((json.allOf as unknown[] | undefined) ?? []), ...patterns, { pattern: NOT_BLANK_PATTERN }];
}

/** Builds the document. Throws when an example names a status, parameter or body the operation lacks. */
export function openApiDocument(def: ApiDefinition): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const op of def.operations) {
    checkExamples(op);
    const item = (paths[op.path] ??= {});
    if (item[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is defined twice`);
    item[op.method] = operationObject(op);
  }
  return {
    openapi: '3.1.0',
    info: def.info,
    ...(def.servers && { servers: def.servers }),
    ...(def.tags && { tags: def.tags }),
    paths,
    components: { securitySchemes: def.securitySchemes ?? {} },
  };
}

function operationObject(op: ApiOperation): Record<string, unknown> {
  const named = (pick: (e: ApiExample) => unknown, include: (e: ApiExample) => boolean) =>
    Object.fromEntries(op.examples.filter(include).map((e) => [e.name, { summary: e.summary, value: pick(e) }]));

  const parameters = (op.parameters ?? []).map((p) => {
    const own = op.examples.filter((e) => e.params?.[p.name] !== undefined);
    return {
      name: p.name,
      in: p.in,
      description: p.description,
      required: p.in === 'path' ? true : (p.required ?? false),
      // `example` and `examples` exclude each other: the fallback value goes into the schema.
      schema: { ...jsonSchemaOf(p.schema, 'input'), examples: [p.example] },
      ...(own.length > 0 && { examples: named((e) => e.params![p.name], (e) => own.includes(e)) }),
    };
  });

  const responses = Object.fromEntries(
    Object.entries(op.responses).map(([status, r]) => {
      const examples = named(
        (e) => e.response,
        (e) => String(e.status) === status && e.response !== undefined,
      );
      return [
        status,
        {
          description: r.description,
          ...(r.schema && {
            content: {
              [r.contentType ?? JSON_TYPE]: {
                schema: jsonSchemaOf(r.schema, 'output'),
                ...(Object.keys(examples).length > 0 && { examples }),
              },
            },
          }),
        },
      ];
    }),
  );

  const pairs: ExamplePair[] = op.examples.map((e) => ({
    name: e.name,
    summary: e.summary,
    status: e.status,
    ...(e.anonymous && { anonymous: true }),
  }));

  return {
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    tags: op.tags,
    security: (op.security ?? []).map((name) => ({ [name]: [] })),
    ...(parameters.length > 0 && { parameters }),
    ...(op.requestBody && {
      requestBody: {
        required: op.requestBody.required ?? true,
        ...(op.requestBody.description && { description: op.requestBody.description }),
        content: Object.fromEntries(
          (op.requestBody.contentTypes ?? [JSON_TYPE]).map((type) => [
            type,
            {
              schema: jsonSchemaOf(op.requestBody!.schema, 'input'),
              ...(type === JSON_TYPE && { examples: named((e) => e.body, (e) => e.body !== undefined) }),
            },
          ]),
        ),
      },
    }),
    responses,
    'x-examples': pairs,
  };
}

function checkExamples(op: ApiOperation): void {
  const where = `${op.operationId} (${op.method.toUpperCase()} ${op.path})`;
  const names = new Set<string>();
  const params = new Set((op.parameters ?? []).map((p) => p.name));
  for (const p of op.parameters ?? []) {
    if (p.in === 'path' && !op.path.includes(`{${p.name}}`)) throw new Error(`${where}: path parameter ${p.name} is not in the path`);
  }
  for (const name of op.path.match(/\{([^}]+)\}/g) ?? []) {
    if (!params.has(name.slice(1, -1))) throw new Error(`${where}: ${name} has no parameter`);
  }
  for (const e of op.examples) {
    if (!/^[a-z0-9_]+$/.test(e.name)) throw new Error(`${where}: example name "${e.name}" must be lowercase letters, digits and "_"`);
    if (names.has(e.name)) throw new Error(`${where}: two examples are named "${e.name}"`);
    names.add(e.name);
    const response = op.responses[e.status];
    if (!response) throw new Error(`${where}: example "${e.name}" is answered ${e.status}, which is not a documented response`);
    for (const key of Object.keys(e.params ?? {})) {
      if (!params.has(key)) throw new Error(`${where}: example "${e.name}" sets ${key}, which is not a parameter`);
    }
    if (e.body !== undefined && !op.requestBody) throw new Error(`${where}: example "${e.name}" has a body; the operation takes none`);
    if (e.response !== undefined) {
      const parsed = response.schema?.safeParse(e.response);
      if (!parsed?.success) {
        throw new Error(`${where}: example "${e.name}"'s answer does not match the ${e.status} schema: ${parsed?.error.message ?? 'no body is documented'}`);
      }
    }
  }
}
