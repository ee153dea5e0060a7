import { z } from 'zod';
import { subscriptionBodySchema, type WebhookService } from '../../webhooks/index.js';
import type { AppContext } from '../app-types.js';
import * as answers from '../openapi/webhook-schemas.js';
import { integerParam } from '../query-params.js';
import { pathValue, tenantOf } from '../route-context.js';
import { bindRoutes, declareRoutes, type RouteGroup } from '../route-declaration.js';
import { callerOf } from './evaluation-route-kit.js';

export const WEBHOOKS_ROUTE = '/api/v1/webhooks';

/** Page size bounds of the two lists. */
export const WEBHOOK_PAGE_DEFAULT_SIZE = 20;
export const WEBHOOK_PAGE_MAX_SIZE = 100;
/** Keeps page × size a safe offset. */
const MAX_PAGE = 1_000_000;

const pageQuery = z.object({
  page: z.number().int().min(0).max(MAX_PAGE).optional().describe('zero-based; default 0'),
  size: z.number().int().min(1).max(WEBHOOK_PAGE_MAX_SIZE).optional().describe(`default ${WEBHOOK_PAGE_DEFAULT_SIZE}`),
});

function pageParams(ctx: AppContext): [number, number] {
  return [
    integerParam(ctx, 'page', { min: 0, max: MAX_PAGE, default: 0 }),
    integerParam(ctx, 'size', { min: 1, max: WEBHOOK_PAGE_MAX_SIZE, default: WEBHOOK_PAGE_DEFAULT_SIZE }),
  ];
}

const subscriptionId = { id: 'subscription id' };
const NOT_FOUND = 'no such subscription for the tenant (ERR_WEBHOOK_NOT_FOUND)';

/** Webhook subscriptions and their deliveries (role ADMIN, bearer token, tenant header). */
export const WEBHOOK_ROUTES = declareRoutes<WebhookService>([
  {
    method: 'post',
    path: WEBHOOKS_ROUTE,
    auth: 'bearer',
    role: 'ADMIN',
    body: subscriptionBodySchema,
    doc: {
      tag: 'webhooks',
      summary: 'Subscribe a URL to events',
      description: 'Deliveries are signed with the answer\'s `secret`, which no later answer shows.',
      success: { status: 201, schema: answers.webhookSubscriptionCreated, description: 'the subscription with its signing secret' },
      errors: {
        400: 'bad body: an unknown or repeated event, a URL that is none or too long (ERR_WEBHOOK_REQUEST_INVALID); a URL the service does not send to: not https, with credentials, or a refused address (ERR_WEBHOOK_URL_NOT_ALLOWED)',
        409: 'the tenant has WEBHOOK_MAX_PER_TENANT subscriptions (ERR_WEBHOOK_SUBSCRIPTION_LIMIT)',
      },
    },
    handle: async (ctx, service) => {
      ctx.body = await service.create(tenantOf(ctx), callerOf(ctx).actorId, (ctx.request as { body?: unknown }).body);
      ctx.status = 201;
    },
  },
  {
    method: 'get',
    path: WEBHOOKS_ROUTE,
    auth: 'bearer',
    role: 'ADMIN',
    query: pageQuery,
    doc: {
      tag: 'webhooks',
      summary: 'The tenant\'s subscriptions, oldest first, paged',
      success: { status: 200, schema: answers.webhookSubscriptionPage, description: 'one page' },
      errors: { 400: 'bad query (ERR_REQUEST_QUERY_INVALID)' },
    },
    handle: async (ctx, service) => {
      ctx.body = await service.list(tenantOf(ctx), ...pageParams(ctx));
    },
  },
  {
    method: 'get',
    path: `${WEBHOOKS_ROUTE}/{id}`,
    auth: 'bearer',
    role: 'ADMIN',
    pathParams: subscriptionId,
    doc: {
      tag: 'webhooks',
      summary: 'One subscription',
      success: { status: 200, schema: answers.webhookSubscription, description: 'the subscription' },
      errors: { 404: NOT_FOUND },
    },
    handle: async (ctx, service) => {
      ctx.body = await service.get(tenantOf(ctx), pathValue(ctx, 'id'));
    },
  },
  {
    method: 'delete',
    path: `${WEBHOOKS_ROUTE}/{id}`,
    auth: 'bearer',
    role: 'ADMIN',
    pathParams: subscriptionId,
    doc: {
      tag: 'webhooks',
      summary: 'Delete a subscription and its deliveries',
      description: 'Attempts already running may still arrive.',
      success: { status: 204, description: 'deleted' },
      errors: { 404: NOT_FOUND },
    },
    handle: async (ctx, service) => {
      await service.remove(tenantOf(ctx), pathValue(ctx, 'id'));
      ctx.status = 204;
    },
  },
  {
    method: 'get',
    path: `${WEBHOOKS_ROUTE}/{id}/deliveries`,
    auth: 'bearer',
    role: 'ADMIN',
    pathParams: subscriptionId,
    query: pageQuery,
    doc: {
      tag: 'webhooks',
      summary: 'A subscription\'s recent deliveries, newest first, paged',
      description: 'The newest WEBHOOK_DELIVERIES_KEPT of the subscription are kept.',
      success: { status: 200, schema: answers.webhookDeliveryPage, description: 'one page' },
      errors: { 400: 'bad query (ERR_REQUEST_QUERY_INVALID)', 404: NOT_FOUND },
    },
    handle: async (ctx, service) => {
      ctx.body = await service.deliveries(tenantOf(ctx), pathValue(ctx, 'id'), ...pageParams(ctx));
    },
  },
  {
    method: 'post',
    path: `${WEBHOOKS_ROUTE}/{id}/deliveries/{deliveryId}/redeliver`,
    auth: 'bearer',
    role: 'ADMIN',
    pathParams: { ...subscriptionId, deliveryId: 'delivery id' },
    doc: {
      tag: 'webhooks',
      summary: 'Send a delivery again now',
      description: 'One more attempt, whatever became of the earlier ones; its outcome is the delivery\'s status (SUCCEEDED or DEAD).',
      success: { status: 202, schema: answers.webhookDelivery, description: 'the delivery, PENDING until the attempt ran' },
      errors: { 404: 'no such subscription, or no such delivery of it (ERR_WEBHOOK_NOT_FOUND)' },
    },
    handle: async (ctx, service) => {
      ctx.body = await service.redeliver(tenantOf(ctx), pathValue(ctx, 'id'), pathValue(ctx, 'deliveryId'));
      ctx.status = 202;
    },
  },
]);

export function createWebhookRoutes(service: WebhookService): RouteGroup {
  return bindRoutes(WEBHOOK_ROUTES, service);
}
