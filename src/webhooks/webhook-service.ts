import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { hasLoneSurrogate, pageView, type Page } from '../kernel/index.js';
import { WebhookError, WebhookErrorCode } from './webhook-errors.js';
import { isWebhookEventType, WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-events.js';
import { generateWebhookSecret } from './webhook-signature.js';
import type { DeliveryStatus, StoredPage, WebhookDelivery, WebhookRepository, WebhookSubscription } from './webhook-store.js';
import { urlProblem, WEBHOOK_URL_MAX_LENGTH, type DestinationRules } from './webhook-url.js';

/** `{url, events}`: what a subscription is made of. */
export const subscriptionBodySchema = z.strictObject({
  url: z.string().max(WEBHOOK_URL_MAX_LENGTH),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).max(WEBHOOK_EVENT_TYPES.length),
});

/** A subscription as the API shows it: never its secret, which only its creation answers. */
export interface SubscriptionView {
  id: string;
  url: string;
  events: WebhookEventType[];
  createdAt: string;
}

export interface DeliveryView {
  id: string;
  eventId: string;
  type: WebhookEventType;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}


export interface WebhookServiceDeps {
  webhooks: WebhookRepository;
  /** The seq of the tenant's newest linked audit record (0 for none): where a tenant's first subscription starts reading. */
  chainHead(tenantId: string): Promise<number>;
  /** Queues one attempt of the delivery now (once per attempts made: repeated asks queue it once), after `beforeQueuing` of the first ask. */
  redeliver(tenantId: string, deliveryId: string, attemptsMade: number, beforeQueuing: () => Promise<void>): Promise<void>;
  rules: DestinationRules;
  /** WEBHOOK_MAX_PER_TENANT. */
  maxPerTenant: number;
  now?: () => Date;
}

export interface WebhookService {
  create(tenantId: string, actorId: string, body: unknown): Promise<SubscriptionView & { secret: string }>;
  list(tenantId: string, page: number, size: number): Promise<Page<SubscriptionView>>;
  get(tenantId: string, id: string): Promise<SubscriptionView>;
  remove(tenantId: string, id: string): Promise<void>;
  deliveries(tenantId: string, id: string, page: number, size: number): Promise<Page<DeliveryView>>;
  redeliver(tenantId: string, id: string, deliveryId: string): Promise<DeliveryView>;
}

const invalid = (message: string) => new WebhookError(400, WebhookErrorCode.REQUEST_INVALID, message);

/** The body's `{url, events}`, or a 400 naming its first problem. */
function parseBody(body: unknown, rules: DestinationRules): { url: string; events: WebhookEventType[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('the request body must be a JSON object `{url, events}`');
  const { url, events, ...rest } = body as Record<string, unknown>;
  const unknownField = Object.keys(rest)[0];
  if (unknownField !== undefined) throw invalid(`the request body takes \`url\` and \`events\` only (got \`${unknownField.slice(0, 64)}\`)`);
  if (typeof url !== 'string' || hasLoneSurrogate(url)) throw invalid('`url` must be a text');
  const problem = urlProblem(url, rules);
  if (problem !== null) throw new WebhookError(400, problem.kind === 'invalid' ? WebhookErrorCode.REQUEST_INVALID : WebhookErrorCode.URL_NOT_ALLOWED, problem.message);
  if (!Array.isArray(events) || events.length === 0) throw invalid(`\`events\` must be a non-empty list of ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  const seen = new Set<string>();
  for (const event of events) {
    if (typeof event !== 'string' || !isWebhookEventType(event)) {
      throw invalid(`\`events\` takes ${WEBHOOK_EVENT_TYPES.join(', ')} (got \`${String(event).slice(0, 64)}\`)`);
    }
    if (seen.has(event)) throw invalid(`\`events\` names ${event} twice`);
    seen.add(event);
  }
  return { url, events: events as WebhookEventType[] };
}

function subscriptionView(subscription: WebhookSubscription): SubscriptionView {
  const { id, url, events, createdAt } = subscription;
  return { id, url, events, createdAt };
}

function deliveryView(delivery: WebhookDelivery): DeliveryView {
  const { id, eventId, eventType, status, attempts, lastStatusCode, lastError, nextAttemptAt, createdAt } = delivery;
  return { id, eventId, type: eventType, status, attempts, lastStatusCode, lastError, nextAttemptAt, createdAt };
}

function pageOf<S, T>(stored: StoredPage<S>, view: (item: S) => T, page: number, size: number): Page<T> {
  return pageView(stored.items.map(view), stored.total, { page, size });
}

/** The webhook endpoints' rules: quotas and destinations checked at creation, another tenant's ids never found. */
export function createWebhookService(deps: WebhookServiceDeps): WebhookService {
  const now = deps.now ?? (() => new Date());
  const notFound = (id: string) => new WebhookError(404, WebhookErrorCode.NOT_FOUND, `no webhook subscription \`${id.slice(0, 64)}\``);

  async function subscription(tenantId: string, id: string): Promise<WebhookSubscription> {
    const found = await deps.webhooks.getSubscription(tenantId, id);
    if (found === null) throw notFound(id);
    return found;
  }

  return {
    async create(tenantId, actorId, body) {
      const { url, events } = parseBody(body, deps.rules);
      // A tenant's first subscription reads its chain from now on; later ones share the tenant's cursor.
      if ((await deps.webhooks.subscriptionsOf(tenantId)).length === 0) await deps.webhooks.advanceCursor(tenantId, await deps.chainHead(tenantId));
      const created: WebhookSubscription = { id: randomUUID(), url, events, secret: generateWebhookSecret(), actorId, createdAt: now().toISOString() };
      if ((await deps.webhooks.createSubscription(tenantId, created, deps.maxPerTenant)) === 'limit') {
        throw new WebhookError(409, WebhookErrorCode.SUBSCRIPTION_LIMIT, `the tenant has ${deps.maxPerTenant} webhook subscriptions, the most it may have (WEBHOOK_MAX_PER_TENANT); delete one first`);
      }
      return { ...subscriptionView(created), secret: created.secret };
    },
    async list(tenantId, page, size) {
      return pageOf(await deps.webhooks.listSubscriptions(tenantId, page, size), subscriptionView, page, size);
    },
    async get(tenantId, id) {
      return subscriptionView(await subscription(tenantId, id));
    },
    async remove(tenantId, id) {
      if (!(await deps.webhooks.deleteSubscription(tenantId, id))) throw notFound(id);
    },
    async deliveries(tenantId, id, page, size) {
      await subscription(tenantId, id);
      return pageOf(await deps.webhooks.listDeliveries(tenantId, id, page, size), deliveryView, page, size);
    },
    async redeliver(tenantId, id, deliveryId) {
      await subscription(tenantId, id);
      const delivery = await deps.webhooks.getDelivery(tenantId, deliveryId);
      if (delivery === null || delivery.subscriptionId !== id) {
        throw new WebhookError(404, WebhookErrorCode.NOT_FOUND, `no delivery \`${deliveryId.slice(0, 64)}\` of webhook subscription \`${id.slice(0, 64)}\``);
      }
      const at = now().toISOString();
      // Both keyed by the attempts made: repeated asks make one job, and one that comes after that
      // job's attempt leaves its outcome standing instead of a PENDING no job would end.
      await deps.redeliver(tenantId, deliveryId, delivery.attempts, () => deps.webhooks.markPending(tenantId, deliveryId, at, delivery.attempts));
      return deliveryView({ ...delivery, status: 'PENDING', nextAttemptAt: at });
    },
  };
}
