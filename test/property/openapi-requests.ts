// Requests for every operation of an OpenAPI 3.1 document, generated with fast-check the way
// schemathesis does it: values that fit the operation's schemas, then mutated the ways clients and
// attackers get them wrong (types, missing and extra fields, huge and deep bodies, unicode, path
// traversal and injection in ids, query strings and headers). Nothing here knows the service:
// what it knows of the service's data comes in as `RequestHints`.
import fc from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  description?: string;
  $ref?: string;
}

interface DocumentParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface DocumentOperation {
  operationId: string;
  parameters?: DocumentParameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, unknown>;
  security?: Array<Record<string, unknown>>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, DocumentOperation>>;
}

/** How an operation authenticates, read from its `security` requirement. */
export type Security = 'none' | 'bearer' | 'signed' | 'signed-or-bearer';

export interface FuzzOperation {
  /** `POST /api/v1/policies/{id}`: the key of counts and reports. */
  key: string;
  method: string;
  pathTemplate: string;
  pathParams: DocumentParameter[];
  query: DocumentParameter[];
  body: JsonSchema | undefined;
  security: Security;
  idempotent: boolean;
}

/** Every operation of the document, with what a request to it is made of. */
export function documentedOperations(document: OpenApiDocument): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [pathTemplate, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const parameters = operation.parameters ?? [];
      const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
      const security: Security =
        schemes.includes('requestSignature') && schemes.includes('bearerToken')
          ? 'signed-or-bearer'
          : schemes.includes('requestSignature')
            ? 'signed'
            : schemes.includes('bearerToken')
              ? 'bearer'
              : 'none';
      operations.push({
        key: `${method.toUpperCase()} ${pathTemplate}`,
        method: method.toUpperCase(),
        pathTemplate,
        pathParams: parameters.filter((p) => p.in === 'path'),
        query: parameters.filter((p) => p.in === 'query'),
        body: operation.requestBody?.content['application/json']?.schema,
        security,
        idempotent: parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'),
      });
    }
  }
  return operations;
}

/**
 * What the test knows of the service's data, so that generated requests also hit real things:
 * ids and names of both tenants (a request naming the other tenant's must still be refused), and
 * field values that get past validation (a source that compiles, a rule that exists).
 */
export interface RequestHints {
  /** By parameter name, or `<path template>#<name>` for one operation's parameter (which wins). */
  pathParams: Record<string, readonly string[]>;
  /** By property name (body fields) or query parameter name. */
  values: Record<string, readonly unknown[]>;
}

/** The body limit the service was started with: huge values are sized around it. */
export interface GenerationLimits {
  bodyLimitBytes: number;
}

// ---------------------------------------------------------------------------------------------
// JSON text with tokens JSON.stringify cannot write (-0, 1e999, NaN, deep nesting as text).

/** A piece of JSON text placed verbatim into the serialised body. */
class RawJson {
  constructor(readonly text: string) {}
}

function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

// ---------------------------------------------------------------------------------------------
// Pools of hostile values.

const NUMBER_TOKENS = ['-0', '1e308', '-1e308', '1e309', '1e999', '-1e999', '5e-324', '1e-400', '123456789012345678901234567890', '9007199254740993', '0.1', '-1', '0'];
const NUMBER_LOOKALIKES = ['NaN', 'Infinity', '-Infinity', '-0', '1e308', '0x10', '1_000', ' 1', '1 ', '+1', '01', '1.0', '1.5', '-1', '', '1e3', '٣'];

/** Unicode that trips naive code: lone surrogates, RTL override, NUL, BOM, combining marks, astral. */
const UNICODE_STRINGS = ['\ud800', '\udfff', 'a\ud83d', '\u202eevil\u202c', 'a\u0000b', '\u0000', '\ufeff', 'e\u0301\u0301\u0301', '𝕏😀👨‍👩‍👧', 'ﷺ', 'İı', 'ß', '\u2028\u2029', '\r\n', '%00', '\\u0000'];

const INJECTION_STRINGS = ['$where', '{"$gt":""}', '{"$ne":null}', "' OR 1=1 --", '" OR ""="', '1; DROP TABLE audit_records; --', '$ne', 'this.constructor', '__proto__', 'constructor', 'prototype', '${7*7}', '{{7*7}}', '<script>alert(1)</script>', '*', '%', '_', 'null', 'undefined', 'true'];

const TRAVERSALS = ['..', '.', '../', '../../etc/passwd', '..%2f', '%2e%2e%2f', '%2e%2e', '%2E%2E%2F', '..%2F..%2Fpackage.json', '%252e%252e%252f', '..%5c..%5c', '....//', '.%2e/', '%2f', '%00', 'a%00b', '%', '%zz', '%E0%A4%A', '%ED%A0%80', '%C0%AE%C0%AE%2F', '~', ';', 'a;b=c', '?', '#', '//'];

const EXTRA_KEYS = ['__proto__', 'constructor', 'prototype', '$where', '$gt', '', ' ', 'extra', 'tenantId', 'tenant', 'policyModule', 'a'.repeat(300), '\u0000', '\ud800'];

// ---------------------------------------------------------------------------------------------
// Valid values of a JSON schema.

const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(...UNICODE_STRINGS, ...INJECTION_STRINGS) },
);

function clampedInteger(min: number | undefined, max: number | undefined): fc.Arbitrary<number> {
  const low = Math.max(min ?? -(2 ** 31), -(2 ** 31));
  const high = Math.min(max ?? 2 ** 31 - 1, 2 ** 31 - 1);
  const edges = [min, max].filter((edge): edge is number => edge !== undefined);
  const inner = low <= high ? fc.integer({ min: low, max: high }) : fc.constant(edges[0] ?? 0);
  return edges.length > 0 ? fc.oneof(inner, fc.constantFrom(...edges)) : inner;
}

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, 40);
  const fits = (text: string) => text.length >= minLength && text.length <= (schema.maxLength ?? Infinity);
  const pool = [...UNICODE_STRINGS, ...INJECTION_STRINGS].filter(fits);
  const generated = fc.oneof(
    fc.string({ minLength, maxLength: Math.max(minLength, maxLength) }),
    fc.string({ unit: 'binary', minLength, maxLength: Math.max(minLength, maxLength) }),
  );
  return pool.length > 0 ? fc.oneof({ weight: 3, arbitrary: generated }, { weight: 1, arbitrary: fc.constantFrom(...pool) }) : generated;
}

/** Values that fit `schema`; a property with hints is usually given one of them. */
function validValue(schema: JsonSchema, hints: RequestHints, name?: string): fc.Arbitrary<unknown> {
  const generic = genericValue(schema, hints);
  const hinted = name === undefined ? undefined : hints.values[name];
  return hinted && hinted.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...hinted) }, { weight: 1, arbitrary: generic }) : generic;
}

function genericValue(schema: JsonSchema, hints: RequestHints): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((alternative) => validValue(alternative, hints)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return clampedInteger(schema.minimum, schema.maximum);
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items ? validValue(schema.items, hints) : anyJson, { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
    case 'object':
      return objectOf(schema, hints);
    default:
      return anyJson;
  }
}

function objectOf(schema: JsonSchema, hints: RequestHints): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  const declared = fc.record(
    Object.fromEntries(names.map((name) => [name, validValue(properties[name]!, hints, name)])),
    { requiredKeys: schema.required ?? [] },
  );
  const additional = schema.additionalProperties;
  if (additional === false || additional === undefined) return declared;
  // An open map (an evaluation context): any keys, any JSON.
  const valueSchema = additional === true ? {} : additional;
  return fc
    .tuple(declared, fc.dictionary(fc.string({ maxLength: 12 }), validValue(valueSchema, hints), { maxKeys: 4 }))
    .map(([known, extra]) => ({ ...extra, ...known }));
}

// ---------------------------------------------------------------------------------------------
// Mutations of a valid value.

/** A value no schema field wants: wrong types, edge numbers, hostile text, huge and deep values. */
function wrongValue(limits: GenerationLimits): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, '', 'x', [], {}, [null], { a: 1 }) },
    { weight: 3, arbitrary: fc.constantFrom(...NUMBER_TOKENS).map((token) => new RawJson(token)) },
    { weight: 2, arbitrary: fc.constantFrom(...NUMBER_LOOKALIKES) },
    { weight: 3, arbitrary: fc.constantFrom<unknown>(...UNICODE_STRINGS, ...INJECTION_STRINGS) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }) },
    { weight: 1, arbitrary: hugeString(limits) },
    { weight: 1, arbitrary: deepJson() },
    { weight: 1, arbitrary: fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 50, maxLength: 2000 }) },
  );
}

/** Strings around the limits: past 64 KiB (policy sources), just under and just past the body limit. */
function hugeString(limits: GenerationLimits): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(65_537, limits.bodyLimitBytes - 512, limits.bodyLimitBytes + 1), fc.constantFrom('x', 'é', '\u0000', '😀'))
    // Sized by the bytes each unit takes in the JSON text (`\u0000` is six).
    .map(([size, unit]) => unit.repeat(Math.ceil(size / (Buffer.byteLength(JSON.stringify(unit)) - 2))));
}

/** Nesting around the service's bounds (64 for contexts, 128 for bodies) and far past them. */
function deepJson(): fc.Arbitrary<RawJson> {
  return fc
    .tuple(fc.constantFrom(10, 63, 64, 65, 127, 128, 129, 1_000, 100_000), fc.boolean())
    .map(([depth, arrays]) => new RawJson(arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));
}

type Path = Array<string | number>;

/** Paths to every array and object node of `value` (the root is `[]`), breadth-first, at most 64. */
function containerPaths(value: unknown): Path[] {
  const found: Path[] = [];
  const queue: Array<[unknown, Path]> = [[value, []]];
  while (queue.length > 0 && found.length < 64) {
    const [node, path] = queue.shift()!;
    if (node === null || typeof node !== 'object' || node instanceof RawJson) continue;
    found.push(path);
    for (const [key, child] of Object.entries(node)) queue.push([child, [...path, Array.isArray(node) ? Number(key) : key]]);
  }
  return found;
}

function cloneWith(value: unknown, path: Path, change: (container: Record<string | number, unknown>) => void): unknown {
  const copy = structuredCloneJson(value);
  let node = copy as Record<string | number, unknown>;
  for (const step of path) node = node[step] as Record<string | number, unknown>;
  change(node);
  return copy;
}

/** A copy that keeps RawJson tokens (structuredClone would turn them into plain objects). */
function structuredCloneJson(value: unknown): unknown {
  if (value instanceof RawJson || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(structuredCloneJson);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, structuredCloneJson(item)]));
}

/** One mutation of a valid value: a field of the wrong type, a field removed, a field added, or another root. */
function mutated(valid: unknown, limits: GenerationLimits): fc.Arbitrary<unknown> {
  const paths = containerPaths(valid);
  const root = fc.oneof(wrongValue(limits), fc.constantFrom<unknown>([], [valid], 'body', 1, null));
  if (paths.length === 0) return root;
  return fc.oneof(
    root,
    fc.tuple(fc.constantFrom(...paths), wrongValue(limits)).chain(([path, wrong]) => {
      const container = pathTarget(valid, path);
      const keys = Object.keys(container);
      if (keys.length === 0) return fc.constant(cloneWith(valid, path, (node) => setChild(node, 0, wrong)));
      return fc.constantFrom(...keys).map((key) => cloneWith(valid, path, (node) => setChild(node, key, wrong)));
    }),
    fc.constantFrom(...paths).chain((path) => {
      const keys = Object.keys(pathTarget(valid, path));
      if (keys.length === 0) return fc.constant(valid);
      return fc.constantFrom(...keys).map((key) => cloneWith(valid, path, (node) => (Array.isArray(node) ? node.splice(Number(key), 1) : delete node[key])));
    }),
    fc.tuple(fc.constantFrom(...paths), fc.oneof(fc.constantFrom(...EXTRA_KEYS), fc.string({ unit: 'binary', maxLength: 16 })), wrongValue(limits)).map(([path, key, extra]) =>
      cloneWith(valid, path, (node) => (Array.isArray(node) ? node.push(extra) : Object.defineProperty(node, key, { value: extra, enumerable: true, configurable: true, writable: true }))),
    ),
  );
}

function pathTarget(value: unknown, path: Path): Record<string | number, unknown> {
  let node = value as Record<string | number, unknown>;
  for (const step of path) node = node[step] as Record<string | number, unknown>;
  return node;
}

function setChild(node: Record<string | number, unknown>, key: string | number, child: unknown): void {
  Object.defineProperty(node, Array.isArray(node) ? Number(key) : key, { value: child, enumerable: true, configurable: true, writable: true });
}

/** Bodies that are not JSON, or JSON that parsers disagree on, as bytes. */
function rawBodies(limits: GenerationLimits): fc.Arbitrary<Uint8Array> {
  const texts = fc.constantFrom(
    '',
    ' ',
    '{',
    '}',
    '[',
    'null',
    'true',
    '1',
    '"x"',
    '{"a":1,}',
    "{'a':1}",
    'NaN',
    '{"x":NaN}',
    '{"x":Infinity}',
    '\ufeff{}',
    '{}{}',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"source":"a","source":1}',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '{"a":1}\u0000',
  );
  return fc.oneof(
    { weight: 4, arbitrary: texts.map((text) => Buffer.from(text, 'utf8')) },
    { weight: 1, arbitrary: deepJson().map((raw) => Buffer.from(raw.text, 'utf8')) },
    // Invalid UTF-8: a stray byte, an encoded surrogate (CESU-8), an overlong slash.
    { weight: 1, arbitrary: fc.constantFrom([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d], [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d], [0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d]).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.constant(Buffer.from('{"a":1}', 'utf16le')) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 256 }) },
    // Past the body limit, as valid JSON.
    { weight: 1, arbitrary: fc.constant(Buffer.from(JSON.stringify({ pad: 'x'.repeat(limits.bodyLimitBytes) }), 'utf8')) },
  );
}

/** The body of a request: valid, mutated, or not JSON at all. */
function requestBody(schema: JsonSchema | undefined, hints: RequestHints, limits: GenerationLimits): fc.Arbitrary<Uint8Array | undefined> {
  if (schema === undefined) {
    // Bodies sent where none is expected.
    return fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: rawBodies(limits) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => Buffer.from(toJsonText(v), 'utf8')) });
  }
  const valid = validValue(schema, hints);
  return fc.oneof(
    { weight: 4, arbitrary: valid.map((value) => Buffer.from(toJsonText(value), 'utf8')) },
    { weight: 5, arbitrary: valid.chain((value) => mutated(value, limits)).map((value) => Buffer.from(toJsonText(value), 'utf8')) },
    { weight: 2, arbitrary: rawBodies(limits) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

// ---------------------------------------------------------------------------------------------
// Path parameters and query strings, as they go on the wire.

/** Percent-encodes text, lone surrogates included (as the CESU-8 bytes no decoder accepts). */
function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else out += encodeURIComponent(char);
  }
  return out;
}

/** Sent as is when every character may go raw in a request target (Node's client allows 0x21-0x7e here). */
function rawOrEncoded(text: string): fc.Arbitrary<string> {
  return /^[\x21-\x7e]+$/.test(text) ? fc.constantFrom(text, percentEncode(text)) : fc.constant(percentEncode(text));
}

/** Capitalised words of a parameter's description: the values it documents (event types, say). */
function documentedWords(description: string | undefined): string[] {
  return [...(description ?? '').matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)].map((m) => m[0]);
}

function pathParamValue(pathTemplate: string, param: DocumentParameter, hints: RequestHints): fc.Arbitrary<string> {
  const hinted = hints.pathParams[`${pathTemplate}#${param.name}`] ?? hints.pathParams[param.name] ?? [];
  const known = [...hinted, ...documentedWords(param.description)];
  const hostile = fc.oneof(
    fc.constantFrom(...TRAVERSALS),
    fc.constantFrom(...INJECTION_STRINGS, ...UNICODE_STRINGS).chain(rawOrEncoded),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 24 }).map(percentEncode),
    fc.integer({ min: 257, max: 3_000 }).map((length) => 'a'.repeat(length)),
    fc.integer({ min: 30, max: 200 }).map((length) => percentEncode('😀'.repeat(length))),
    fc.constantFrom('0', '-1', '1.5', 'NaN', '9'.repeat(40), '00000000-0000-0000-0000-000000000000'),
  );
  const plausible = fc.stringMatching(/^[A-Za-z0-9._@-]{1,40}$/);
  return known.length > 0
    ? fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...known).chain(rawOrEncoded) }, { weight: 1, arbitrary: plausible }, { weight: 4, arbitrary: hostile })
    : fc.oneof({ weight: 1, arbitrary: plausible }, { weight: 3, arbitrary: hostile });
}

function queryText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** One query parameter as `name=value` pairs: absent, valid, wrong, repeated, or hostile. */
function queryPairs(param: DocumentParameter, hints: RequestHints): fc.Arbitrary<Array<[string, string]>> {
  const valid = validValue(param.schema ?? {}, hints, param.name).map(queryText);
  const wrong = fc.oneof(
    fc.constantFrom(...NUMBER_LOOKALIKES, ...INJECTION_STRINGS, ...UNICODE_STRINGS, 'true', 'false', 'TRUE', '[]', '{}', '2026-02-30T00:00:00Z', '2026-01-01T00:00:00', '+275760-09-13T00:00:00Z', '2026-01-01T00:00:00+24:00', 'T', '9'.repeat(30)),
    fc.string({ unit: 'binary', maxLength: 24 }),
    fc.integer({ min: 2_000, max: 6_000 }).map((length) => 'q'.repeat(length)),
  );
  const encodedValue = (value: fc.Arbitrary<string>) => value.map(percentEncode);
  return fc.oneof(
    { weight: param.required ? 1 : 6, arbitrary: fc.constant<Array<[string, string]>>([]) },
    { weight: 4, arbitrary: encodedValue(valid).map((v) => [[param.name, v] as [string, string]]) },
    { weight: 2, arbitrary: encodedValue(wrong).map((v) => [[param.name, v] as [string, string]]) },
    { weight: 1, arbitrary: fc.tuple(encodedValue(valid), encodedValue(fc.oneof(valid, wrong))).map(([a, b]) => [[param.name, a], [param.name, b]] as Array<[string, string]>) },
    { weight: 1, arbitrary: fc.constantFrom<Array<[string, string]>>([[`${param.name}[]`, '1']], [[`${param.name}[$gt]`, '']], [[param.name, '%']], [[param.name, '%zz']], [[param.name, '%ED%A0%80']], [[param.name.toUpperCase(), '1']]) },
  );
}

/** The query string (without `?`), or undefined for none. */
function queryString(params: DocumentParameter[], hints: RequestHints): fc.Arbitrary<string | undefined> {
  const extra = fc.oneof(
    { weight: 5, arbitrary: fc.constant<Array<[string, string]>>([]) },
    { weight: 1, arbitrary: fc.constantFrom<Array<[string, string]>>([['unknown', '1']], [['', '']], [['__proto__', 'x']], [['a', '%00']], [['&&', '==']], [['tenant', 'other']], [['x-tenant-id', 'other']]) },
  );
  return fc.tuple(fc.tuple(...params.map((param) => queryPairs(param, hints))), extra, fc.boolean()).map(([perParam, added, shuffled]) => {
    const pairs = [...perParam.flat(), ...added];
    if (shuffled) pairs.reverse();
    return pairs.length === 0 ? undefined : pairs.map(([name, value]) => `${name}=${value}`).join('&');
  });
}

// ---------------------------------------------------------------------------------------------
// Headers and credentials.

/**
 * How the request authenticates: `valid` is what the operation takes (a signature or a token of the
 * fuzzing tenant, role ADMIN), so that most requests reach validation; the rest are wrong ways in.
 */
export type CredentialPlan =
  | 'valid'
  | 'bearer'
  | 'signed'
  | 'none'
  | 'garbage-token'
  | 'other-tenants-token'
  | 'bad-signature'
  | 'stale-signature';

/** The tenant header: the fuzzing tenant's, the other tenant's, missing, repeated, or garbage. */
export type TenantPlan = { kind: 'own' } | { kind: 'other' } | { kind: 'missing' } | { kind: 'both' } | { kind: 'twice' } | { kind: 'value'; value: string };

/** Header values Node's client will send: tab, printable ASCII and Latin-1. */
const headerText = fc.string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff })).map((code) => String.fromCharCode(code)), maxLength: 64 });

export interface HeaderPlan {
  credentials: CredentialPlan;
  tenant: TenantPlan;
  /** `null`: no Content-Type even with a body. */
  contentType: string | null;
  /** Further headers, in order; a name may repeat. */
  extra: Array<[string, string]>;
  /** Send the body chunked (no Content-Length). */
  chunked: boolean;
}

function headerPlan(operation: FuzzOperation): fc.Arbitrary<HeaderPlan> {
  const credentials = fc.oneof(
    { weight: 12, arbitrary: fc.constant<CredentialPlan>('valid') },
    { weight: operation.security === 'signed-or-bearer' ? 4 : 0, arbitrary: fc.constantFrom<CredentialPlan>('bearer', 'signed') },
    { weight: operation.security === 'none' ? 0 : 2, arbitrary: fc.constantFrom<CredentialPlan>('none', 'garbage-token', 'other-tenants-token', 'bad-signature', 'stale-signature') },
  );
  const tenant = fc.oneof(
    { weight: 14, arbitrary: fc.constant<TenantPlan>({ kind: 'own' }) },
    { weight: 1, arbitrary: fc.constantFrom<TenantPlan>({ kind: 'other' }, { kind: 'missing' }, { kind: 'both' }, { kind: 'twice' }) },
    { weight: 1, arbitrary: fc.oneof(fc.constantFrom('', ' ', 'a'.repeat(65), '../a', "a' OR 1=1 --", '{"$gt":""}', 'tenant\u00e9', '*', 'a,b'), headerText).map((value): TenantPlan => ({ kind: 'value', value })) },
  );
  const contentType = fc.oneof(
    { weight: 12, arbitrary: fc.constant<string | null>('application/json') },
    {
      weight: 3,
      arbitrary: fc.constantFrom<string | null>(
        null,
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'application/json; charset="UTF-8"',
        'application/json; charset=nonsense',
        'APPLICATION/JSON',
        'application/jsonx',
        'application/vnd.api+json',
        'application/graphql',
        '*/*',
        '',
        'application/json, text/plain',
      ),
    },
  );
  const single = fc.oneof(
    fc.constantFrom<[string, string]>(
      ['Content-Encoding', 'gzip'],
      ['Content-Encoding', 'identity'],
      ['Content-Encoding', 'br, gzip'],
      ['Accept', 'text/html'],
      ['Accept', 'application/graphql-response+json'],
      ['Accept', 'application/json; charset=latin1'],
      ['Accept', 'image/png'],
      ['X-Request-Id', 'a'.repeat(129)],
      ['X-Request-Id', '../../x'],
      ['X-User-Role', 'OWNER'],
      ['X-User-Role', 'ROOT'],
      ['X-User-Role', 'viewer'],
      ['X-User-Role', ''],
      ['X-Forwarded-For', '1.2.3.4'],
      ['Authorization', 'Basic YTpi'],
      ['Authorization', 'Bearer'],
      ['Authorization', 'Bearer a.b.c'],
      ['Expect', '100-continue'],
      ['Idempotency-Key', ''],
      ['Idempotency-Key', 'k'.repeat(256)],
      ['Idempotency-Key', 'has space'],
      ['Idempotency-Key', 'clé'],
      ['Idempotency-Key', 'fuzz-reused-key'],
      ['Idempotency-Key', '\t'],
    ),
    fc.uuid().map((key): [string, string] => ['Idempotency-Key', key]),
    fc.tuple(fc.stringMatching(/^X-[A-Za-z0-9-]{1,20}$/), headerText),
    // Large, within Node's 16 KiB header limit.
    fc.integer({ min: 1_000, max: 10_000 }).map((length): [string, string] => ['X-Padding', 'p'.repeat(length)]),
  );
  return fc.record({
    credentials,
    tenant,
    contentType,
    extra: fc.oneof({ weight: 3, arbitrary: fc.constant<Array<[string, string]>>([]) }, { weight: 2, arbitrary: fc.array(single, { minLength: 1, maxLength: 3 }) }),
    chunked: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  });
}

// ---------------------------------------------------------------------------------------------
// The request.

export interface GeneratedRequest {
  operation: FuzzOperation;
  method: string;
  /** Path and query exactly as sent. */
  target: string;
  body: Uint8Array | undefined;
  headers: HeaderPlan;
}

/** Request line and headers stay within Node's 16 KiB header limit (past it Node answers 431 itself). */
const HEADER_BUDGET = 12_000;

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Requests to `operation`: mostly its own method, sometimes another one on the same path. */
export function fuzzRequest(operation: FuzzOperation, hints: RequestHints, limits: GenerationLimits): fc.Arbitrary<GeneratedRequest> {
  const path = fc
    .tuple(...operation.pathParams.map((param) => pathParamValue(operation.pathTemplate, param, hints)))
    .map((values) => operation.pathParams.reduce((template, param, index) => template.replace(`{${param.name}}`, values[index]!), operation.pathTemplate));
  const method = fc.oneof({ weight: 15, arbitrary: fc.constant(operation.method) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS.filter((m) => m !== operation.method)) });
  return fc
    .record({
      method,
      path,
      query: queryString(operation.query, hints),
      body: requestBody(operation.body, hints, limits),
      headers: headerPlan(operation),
    })
    .map(({ method: chosen, path: wirePath, query, body, headers }) => ({
      operation,
      method: chosen,
      target: query === undefined ? wirePath : `${wirePath}?${query}`,
      body,
      headers,
    }))
    .filter((request) => request.target.length + request.headers.extra.reduce((sum, [name, value]) => sum + name.length + value.length, 0) < HEADER_BUDGET);
}
