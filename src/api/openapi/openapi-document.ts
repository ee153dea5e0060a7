import { z } from 'zod';
import { TENANT_ID_PATTERN } from '../../kernel/index.js';
import type { OperationText, RouteSpec } from '../route-declaration.js';
import { serviceVersion } from '../service-version.js';
import { AUTHENTICATION_ERRORS } from './authentication-errors.js';
import { errorEnvelope } from './response-schemas.js';

/** A route the document shows: its text is there. */
type ApiOperation = RouteSpec & { doc: OperationText };

type JsonSchema = Record<string, unknown>;

/** JSON Schema (2020-12, what OpenAPI 3.1 uses) of a zod schema; requests as sent, answers as given. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dropped, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

const ERROR = { $ref: '#/components/schemas/ErrorEnvelope' };
const errorResponse = (description: string, schema: JsonSchema = ERROR) => ({ description, content: { 'application/json': { schema } } });

function parameters(op: ApiOperation): JsonSchema[] {
  const list: JsonSchema[] = [];
  for (const [name, description] of Object.entries(op.pathParams ?? {})) list.push({ name, in: 'path', required: true, description, schema: { type: 'string', minLength: 1 } });
  for (const [name, field] of Object.entries(op.query?.shape ?? {})) {
    const schema = field as z.ZodType;
    list.push({ name, in: 'query', required: !schema.safeParse(undefined).success, schema: jsonSchema(schema, 'input') });
  }
  if (op.auth !== 'none') list.push({ name: 'X-Tenant-ID', in: 'header', required: true, description: 'The tenant: 1-64 letters, digits, `_` or `-`', schema: { type: 'string', pattern: TENANT_ID_PATTERN.source } });
  if (op.auth === 'signed' || op.auth === 'signed-or-bearer') {
    for (const [name, description] of [
      ['X-User-Role', `the role signed for, or vouched for by a trusted gateway (VIEWER, MEMBER, ADMIN, OWNER)${op.auth === 'signed-or-bearer' ? '; optional with a bearer token' : ''}`],
      ['X-Policy-Timestamp', 'Unix seconds, within ±300 s of the server'],
      ['X-Policy-Nonce', '16-128 of A-Z a-z 0-9 _ -; single use'],
    ] as const) {
      list.push({ name, in: 'header', required: false, description, schema: { type: 'string' } });
    }
  }
  if (op.idempotent) list.push({ name: 'Idempotency-Key', in: 'header', required: false, description: '1-255 printable characters; a repeat within 24 hours gets the stored answer', schema: { type: 'string', maxLength: 255 } });
  return list;
}

function security(op: ApiOperation): JsonSchema[] | undefined {
  switch (op.auth) {
    case 'none':
      return [];
    case 'bearer':
      return [{ bearerToken: [] }];
    case 'signed':
      return [{ requestSignature: [] }, { trustedGateway: [] }];
    case 'signed-or-bearer':
      return [{ requestSignature: [] }, { bearerToken: [] }, { trustedGateway: [] }];
  }
}

function operation(op: ApiOperation): JsonSchema {
  const responses: Record<string, unknown> = {};
  const { success } = op.doc;
  responses[String(success.status)] = {
    description: success.description,
    ...(success.headers
      ? { headers: Object.fromEntries(Object.entries(success.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) }
      : {}),
    ...(success.schema
      ? { content: { 'application/json': { schema: jsonSchema(success.schema, 'output') } } }
      : success.contentType
        ? { content: { [success.contentType]: { schema: { type: 'string' } } } }
        : {}),
  };
  const errors: Record<string, string> = { ...AUTHENTICATION_ERRORS[op.auth], ...op.doc.errors };
  if (op.body !== undefined && errors['400'] === undefined) errors['400'] = 'the body is not valid JSON or does not fit';
  if (op.body !== undefined && errors['413'] === undefined) errors['413'] = 'body larger than the limit (ERR_REQUEST_BODY_TOO_LARGE)';
  errors['500'] =
    'a defect: the answer carries a reference id that the log shows with the stack (ERR_INTERNAL_UNEXPECTED); ' +
    'or the answer would be larger than RESPONSE_MAX_BYTES (ERR_RESPONSE_TOO_LARGE)';
  const refusal = op.doc.errorSchema === undefined ? ERROR : jsonSchema(op.doc.errorSchema, 'output');
  for (const [status, description] of Object.entries(errors)) responses[status] = errorResponse(description, status === '500' ? ERROR : refusal);
  const role = op.role === undefined ? '' : ` Role ${op.role} or higher.`;
  return {
    tags: [op.doc.tag],
    summary: op.doc.summary,
    ...(op.doc.description || role ? { description: `${op.doc.description ?? ''}${role}`.trim() } : {}),
    operationId: `${op.method}${op.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    parameters: parameters(op),
    ...(op.body !== undefined ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(op.body, 'input') } } } } : {}),
    responses,
    security: security(op),
  };
}

const documented = (route: RouteSpec): route is ApiOperation => route.doc !== undefined;

/** The OpenAPI 3.1 document of `routes` (pages without text left out), in their order, with their zod schemas. */
export function buildOpenApiDocument(routes: readonly RouteSpec[]): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of routes.filter(documented)) (paths[op.path] ??= {})[op.method] = operation(op);
  const { service, version } = serviceVersion();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Policy engine service',
      version,
      description: `${service}: evaluates business policies written in a multi-locale policy language, per tenant, and records what happens in a tamper-evident audit chain. Every error answers the envelope \`{result: null, error, executionTimeMs: 0, code}\`.`,
    },
    servers: [{ url: '/' }],
    tags: ['operations', 'audit', 'anomalies', 'evaluation', 'registry', 'workflows', 'webhooks', 'graphql'].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ErrorEnvelope: jsonSchema(errorEnvelope, 'output') },
      securitySchemes: {
        bearerToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'A token of the identity provider the service is configured with (JWT_JWKS_URL; signed with one of JWT_ALGORITHMS, by default RS256, ES256 or EdDSA; `iss` and `aud` checked; tenant, role and subject from the claims JWT_TENANT_CLAIM, JWT_ROLE_CLAIM and JWT_SUBJECT_CLAIM), or a development token (HS256 with `sub`, `tenant`, `roles`, `iat`, `exp`, minted by `npm run token`; refused with JWT_DEVELOPMENT_TOKENS=false)',
        },
        trustedGateway: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Gateway-Secret',
          description:
            'Off unless TRUSTED_GATEWAY_CIDRS is set: a request from a listed peer address (the socket\'s, never X-Forwarded-For) with no credentials of its own is taken as the tenant and role of X-Tenant-Id and X-User-Role; X-Gateway-Secret must equal TRUSTED_GATEWAY_SECRET when that is set. Audited as `gateway:<role>`',
        },
        requestSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Policy-Signature',
          description:
            '`v1=<base64url HMAC-SHA256>` with the tenant\'s signing secret over `METHOD\\nPATH?QUERY\\nTIMESTAMP\\nNONCE\\nTENANT\\nROLE\\n<hex SHA-256 of the body>`, sent with X-Tenant-Id, X-User-Role, X-Policy-Timestamp and X-Policy-Nonce (src/auth/request-signing.md)',
        },
      },
    },
  };
}
