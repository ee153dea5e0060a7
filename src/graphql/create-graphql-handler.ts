import type { IncomingMessage } from 'node:http';
import {
  execute,
  getOperationAST,
  GraphQLError,
  parse,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import {
  createHandler,
  parseRequestParams,
  type Handler,
  type OperationArgs,
  type Request,
  type RequestParams,
  type Response,
} from 'graphql-http';
import { DEFAULT_RESPONSE_MAX_BYTES, receiptFields, type ReceiptFields } from '../api/index.js';
import type { AuditReceipt } from '../audit/index.js';
import { roleSatisfies } from '../auth/index.js';
import type { GraphqlContext } from './graphql-context.js';
import { GraphqlErrorCode } from './graphql-error-codes.js';
import type { GraphqlLimits } from './graphql-limits.js';
import { executionResponse, negotiateMediaType, requestErrorResponse } from './graphql-response.js';
import { createPreparedDocuments, withCode } from './prepared-documents.js';
import { requiredRole } from './required-role.js';
import { rootDecisions } from './root-decisions.js';

export type GraphqlRequest = Request<IncomingMessage, GraphqlContext>;
export type GraphqlHandler = Handler<IncomingMessage, GraphqlContext>;

export interface GraphqlHandlerOptions {
  schema: GraphQLSchema;
  limits: GraphqlLimits;
  /** Query texts whose parse and validation outcome is remembered; default 256, 0 disables. */
  documentCacheSize?: number;
  /** Largest answer in UTF-8 bytes (RESPONSE_MAX_BYTES); default DEFAULT_RESPONSE_MAX_BYTES. */
  maxResponseBytes?: number;
}

export interface GraphqlEndpoint {
  handle: GraphqlHandler;
  /**
   * The domain decisions the request would run (see rootDecisions), judged by the same pipeline
   * and the same cached documents as `handle`: what it is charged against the tenant's rate limit
   * before anything runs. 0 for a request the pipeline refuses.
   */
  decisionsIn(req: GraphqlRequest): Promise<number>;
}

/** The document and operation a request runs, or why the pipeline refuses it. */
type Admission =
  | { ok: true; document: DocumentNode; operation: OperationDefinitionNode }
  | { ok: false; status: 400 | 405; errors: readonly GraphQLError[]; headers?: Record<string, string> };

/**
 * graphql-http's spec-compliant handler (media types, methods, parameters), with the request
 * pipeline run here instead of inside it: size and token limits, parse, read-only check,
 * depth/alias/cost limits, validation, then the role the selected fields need, all before
 * anything executes. Every refusal is a GraphQL error with `extensions.code`.
 *
 * Responses are rendered here too, and graphql-http is handed this module's `execute`: graphql
 * ships a CommonJS and an ES module build, and a loader may give graphql-http the other one, whose
 * `instanceof` checks would not recognise this module's schema and errors.
 */
export function createGraphqlHandler(options: GraphqlHandlerOptions): GraphqlEndpoint {
  const { schema, limits } = options;
  const documents = createPreparedDocuments(schema, limits, options.documentCacheSize);
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_RESPONSE_MAX_BYTES;

  function admit(params: RequestParams, method: string): Admission {
    const query = params.query;
    const bytes = Buffer.byteLength(query, 'utf8');
    if (bytes > limits.maxDocumentBytes) {
      return {
        ok: false,
        status: 400,
        errors: [coded(GraphqlErrorCode.DOCUMENT_TOO_LARGE, `the query document is ${bytes} bytes; the limit is ${limits.maxDocumentBytes}`)],
      };
    }

    const prepared = documents.prepare(query);
    if (!prepared.ok) return { ok: false, status: 400, errors: prepared.errors };
    const document = prepared.document;

    const operation = getOperationAST(document, params.operationName);
    if (!operation) return { ok: false, status: 400, errors: [unknownOperation(document, params)] };
    if (operation.operation !== 'query') {
      const error = coded(
        GraphqlErrorCode.OPERATION_NOT_SUPPORTED,
        `this endpoint is read-only: ${operation.operation} operations are not supported, send a query`,
        operation,
      );
      // GraphQL over HTTP: a mutation sent with GET is answered 405, naming the method that could carry it.
      if (operation.operation === 'mutation' && method === 'GET') return { ok: false, status: 405, errors: [error], headers: { allow: 'POST' } };
      return { ok: false, status: 400, errors: [error] };
    }
    if (prepared.validationErrors.length > 0) return { ok: false, status: 400, errors: prepared.validationErrors };
    return { ok: true, document, operation };
  }

  const handle = createHandler<IncomingMessage, GraphqlContext, GraphqlContext>({
    schema,
    execute,
    validate,
    parse,
    getOperationAST,

    async parseRequestParams(req) {
      try {
        return await parseRequestParams(req);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return requestErrorResponse(400, [coded(GraphqlErrorCode.REQUEST_INVALID, REQUEST_MESSAGES[message] ?? message)], mediaTypeOf(req));
      }
    },

    onSubscribe(req, params) {
      const admitted = admit(params, req.method);
      if (!admitted.ok) return requestErrorResponse(admitted.status, admitted.errors, mediaTypeOf(req), admitted.headers);
      const { document, operation } = admitted;

      const context = req.context;
      const needed = requiredRole(document, operation);
      if (!roleSatisfies(context.role, needed.role)) {
        return requestErrorResponse(
          403,
          [
            coded(
              GraphqlErrorCode.ROLE_INSUFFICIENT,
              `role ${context.role} may read policies only: ${needed.decisions.map((name) => `\`${name}\``).join(', ')} ` +
                `${needed.decisions.length === 1 ? 'needs' : 'need'} ${needed.role} or higher`,
              operation,
            ),
          ],
          mediaTypeOf(req),
        );
      }

      const args: OperationArgs<GraphqlContext> = {
        schema,
        document,
        operationName: params.operationName ?? null,
        variableValues: params.variables ?? null,
        contextValue: context,
        rootValue: undefined,
      };
      return args;
    },

    onOperation(req, args, result: ExecutionResult) {
      // No `data` at all: the request failed before execution (variables that do not coerce).
      if (!('data' in result) || result.data === undefined) {
        const errors = (result.errors ?? []).map((error) => withCode(error, GraphqlErrorCode.VARIABLES_INVALID));
        return requestErrorResponse(400, errors, mediaTypeOf(req));
      }
      const auditReceipts = receiptsByResponseKey(args.contextValue?.receipts);
      return executionResponse(
        {
          data: result.data,
          ...(result.errors ? { errors: result.errors.map(formatGraphqlError) } : {}),
          ...(auditReceipts ? { extensions: { auditReceipts } } : {}),
        },
        mediaTypeOf(req),
        maxResponseBytes,
      );
    },
  });

  return {
    handle,
    async decisionsIn(req) {
      let params: RequestParams | Response;
      try {
        params = await parseRequestParams(req);
      } catch {
        return 0; // malformed parameters: refused by `handle` with the reason
      }
      // graphql-http answers some requests (a method it does not serve) before any parameter is read.
      if (isResponse(params)) return 0;
      const admitted = admit(params, req.method);
      return admitted.ok ? rootDecisions(admitted.document, admitted.operation).length : 0;
    },
  };
}

/**
 * `extensions.auditReceipts` of an executed operation: each evaluated decision's receipt under its
 * response key, as `data` (or `errors[].path`) names the field; undefined when none was evaluated.
 */
function receiptsByResponseKey(receipts: ReadonlyMap<string, AuditReceipt> | undefined): Record<string, ReceiptFields> | undefined {
  if (receipts === undefined || receipts.size === 0) return undefined;
  // fromEntries defines each key as the object's own, whatever the alias (even `__proto__`).
  return Object.fromEntries([...receipts].map(([key, receipt]) => [key, receiptFields(receipt)]));
}

function isResponse(value: RequestParams | Response): value is Response {
  return Array.isArray(value);
}

/** graphql-http has answered 406 before any hook runs when nothing acceptable is asked for. */
function mediaTypeOf(req: GraphqlRequest) {
  return negotiateMediaType(headerOf(req, 'accept')) ?? 'application/json';
}

function headerOf(req: GraphqlRequest, name: string): string | undefined {
  const headers = req.headers;
  if (typeof headers.get === 'function') return headers.get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function coded(code: string, message: string, node?: OperationDefinitionNode): GraphQLError {
  return new GraphQLError(message, { ...(node ? { nodes: [node] } : {}), extensions: { code } });
}

function unknownOperation(document: DocumentNode, params: RequestParams): GraphQLError {
  const operations = document.definitions.filter((definition) => definition.kind === 'OperationDefinition');
  if (operations.length === 0) return coded(GraphqlErrorCode.OPERATION_UNKNOWN, 'the document contains no operation');
  if (params.operationName) {
    return coded(GraphqlErrorCode.OPERATION_UNKNOWN, `the document has no operation named \`${params.operationName}\``);
  }
  return coded(
    GraphqlErrorCode.OPERATION_UNKNOWN,
    `the document has ${operations.length} operations: name the one to run in \`operationName\``,
  );
}

/** graphql-http's own messages for malformed parameters, said the way the service says things. */
const REQUEST_MESSAGES: Readonly<Record<string, string>> = {
  'Missing query': 'the request has no `query`: send the GraphQL document as the string `query`',
  'Invalid query': '`query` must be a string holding the GraphQL document',
  'Invalid variables': '`variables` must be an object mapping variable names to values',
  'Invalid operationName': '`operationName` must be a string',
  'Invalid extensions': '`extensions` must be an object',
  'Missing body': 'the request has no body: POST a JSON object with `query`',
  'Unparsable JSON body': 'the request body is not valid JSON',
  'JSON body must be an object': 'the request body must be a JSON object with `query`',
  'Unparsable URL': 'the URL parameters are malformed: `variables` and `extensions` must be JSON',
};

/** Field errors without a code come from completing a value that does not fit the schema. */
export function formatGraphqlError(error: GraphQLError): GraphQLError {
  if (typeof error.extensions.code === 'string') return error;
  return withCode(error, error.path ? GraphqlErrorCode.RESULT_INVALID : GraphqlErrorCode.REQUEST_INVALID);
}
