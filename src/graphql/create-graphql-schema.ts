import {
  buildSchema,
  GraphQLError,
  type GraphQLSchema,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
} from 'graphql';
import { POLICY_PAGE_MAX_PAGE, POLICY_PAGE_MAX_SIZE } from '../policies/index.js';
import { decisionFailureError, decisionShapeError, dependencyError, type DecisionSite } from './decision-errors.js';
import { DOMAIN_QUERIES, type DomainQuery } from './domain-queries.js';
import type { GraphqlContext } from './graphql-context.js';
import { GraphqlErrorCode } from './graphql-error-codes.js';
import type { PolicyView } from './policy-reader.js';
import { SCHEMA_SDL } from './schema-sdl.js';

type Resolver<Parent = unknown> = GraphQLFieldResolver<Parent, GraphqlContext, Record<string, unknown>>;

/** The executable schema: SCHEMA_SDL with its root resolvers. Built once, shared by all requests. */
export function createGraphqlSchema(): GraphQLSchema {
  const schema = buildSchema(SCHEMA_SDL);
  const query = schema.getQueryType() as GraphQLObjectType;
  const fields = query.getFields();
  fields.getPolicy!.resolve = resolveGetPolicy;
  fields.listPolicies!.resolve = resolveListPolicies;
  (schema.getType('Policy') as GraphQLObjectType).getFields().source!.resolve = resolvePolicySource;
  for (const [name, domainQuery] of Object.entries(DOMAIN_QUERIES)) {
    const field = fields[name];
    if (!field) throw new Error(`schema has no root field ${name}`);
    field.resolve = domainResolver(name, domainQuery, field.args.map((arg) => arg.name));
  }
  return schema;
}

/** A registry answering with another tenant's policy would be a bug; it must never reach the client. */
function ownedBy(tenantId: string, view: PolicyView, context: GraphqlContext): boolean {
  if (view.tenantId === undefined || view.tenantId === tenantId) return true;
  context.log.warn({ tenantId, policyId: view.id }, 'graphql: policy registry returned a policy of another tenant');
  return false;
}

const resolveGetPolicy: Resolver = async (_root, args, context) => {
  let view: PolicyView | null;
  try {
    view = await context.policies.get(context.tenantId, String(args.id));
  } catch (error) {
    throw dependencyError(error, context.log, 'getPolicy');
  }
  return view !== null && ownedBy(context.tenantId, view, context) ? view : null;
};

/** A paging argument within its bounds; the cost rule weighs `size` before anything runs. */
function pageArgument(args: Record<string, unknown>, name: 'page' | 'size', min: number, max: number): number {
  const value = args[name];
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max) return value;
  throw new GraphQLError(`\`listPolicies(${name}:)\` must be a whole number from ${min} to ${max} (got ${String(value)})`, {
    extensions: { code: GraphqlErrorCode.ARGUMENT_INVALID },
  });
}

const resolveListPolicies: Resolver = async (_root, args, context) => {
  const page = pageArgument(args, 'page', 0, POLICY_PAGE_MAX_PAGE);
  const size = pageArgument(args, 'size', 1, POLICY_PAGE_MAX_SIZE);
  let views: PolicyView[];
  try {
    views = await context.policies.list(context.tenantId, { page, size });
  } catch (error) {
    throw dependencyError(error, context.log, 'listPolicies');
  }
  return views.filter((view) => ownedBy(context.tenantId, view, context));
};

/** Per request, each version's source is read once however many of its rules (or aliases) ask for it. */
const sourcesRead = new WeakMap<GraphqlContext, Map<string, Promise<string>>>();

const resolvePolicySource: Resolver<PolicyView> = async (view, _args, context) => {
  if (view.source !== undefined) return view.source;
  let read = sourcesRead.get(context);
  if (read === undefined) {
    read = new Map();
    sourcesRead.set(context, read);
  }
  const key = `${view.policyModule}@${view.version}`;
  let source = read.get(key);
  if (source === undefined) {
    source = context.policies.source(context.tenantId, view.policyModule, view.version);
    read.set(key, source);
  }
  try {
    return await source;
  } catch (error) {
    throw dependencyError(error, context.log, 'Policy.source');
  }
};

function domainResolver(policyFunction: string, domainQuery: DomainQuery, argumentOrder: readonly string[]): Resolver {
  const site: DecisionSite = { policyModule: domainQuery.policyModule, policyFunction };
  return async (_root, args, context, info) => {
    // Separate parameters in argument order (a positional context), not one input object.
    const parameters = argumentOrder.map((name) => plain(args[name]));
    let decision;
    try {
      decision = await context.decide({ tenantId: context.tenantId, actorId: context.actorId }, site.policyModule, policyFunction, parameters);
    } catch (error) {
      throw dependencyError(error, context.log, `${site.policyModule}.${policyFunction}`);
    }
    const { result, receipt } = decision;
    // A failed decision was recorded too: its receipt goes with the error.
    if (receipt !== undefined) context.receipts.set(String(info.path.key), receipt);
    if (!result.ok) throw decisionFailureError(result, site);
    const value = result.value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw decisionShapeError(site, value);
    return domainQuery.adapt ? domainQuery.adapt(value) : value;
  };
}

/** Coerced input objects have no prototype; the engine's context crosses threads and Redis as JSON. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) copy[key] = plain(entry);
    return copy;
  }
  return value;
}
