import { z } from 'zod';

/**
 * GraphQL over HTTP as the OpenAPI document declares it. graphql-http checks the requests itself
 * and answers in its own form, so these only describe them.
 */
const json = z.record(z.string(), z.unknown());

/** GET: the request in the query string, its variables as JSON text. */
export const graphqlQueryParams = z.object({ query: z.string(), variables: z.string().optional(), operationName: z.string().optional() });

/** POST: the request as a JSON object. */
export const graphqlRequestBody = z.object({ query: z.string(), variables: json.optional(), operationName: z.string().optional() });

const receipt = z.object({
  auditRecordId: z.string().describe('The id of the decision\'s audit record, stored before the answer'),
  auditContentHash: z.string().describe('Lowercase hex SHA-256 of the record\'s canonical content'),
});

/**
 * A refusal as /graphql answers it: GraphQL errors, each with its code in `extensions.code` when
 * it has one; refused before the query ran (authentication, rate limit, size), also the fields of
 * the service's error envelope beside them.
 */
export const graphqlRefusal = z.object({
  errors: z.array(z.looseObject({ message: z.string(), extensions: z.looseObject({ code: z.string().optional() }).optional() })),
  result: z.null().optional(),
  error: z.string().optional(),
  executionTimeMs: z.number().optional(),
  code: z.string().optional(),
});

export const graphqlAnswer = z.object({
  data: json.nullable().optional(),
  errors: z.array(json).optional(),
  extensions: z
    .object({
      auditReceipts: z
        .record(z.string(), receipt)
        .describe('The receipt of each domain decision evaluated, under its response key (its alias, or else the field\'s name), failed decisions included'),
    })
    .optional()
    .describe('Present when the operation evaluated a domain decision'),
});
