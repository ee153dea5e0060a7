import { z } from 'zod';
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '../../webhooks/index.js';
import { page } from './response-schemas.js';

/** A webhook subscription as the API shows it (never its secret). */
export const webhookSubscription = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  createdAt: z.string().describe('ISO 8601, UTC'),
});
export const webhookSubscriptionCreated = webhookSubscription.extend({
  secret: z.string().describe('signs every delivery (X-Policy-Webhook-Signature); shown in this answer only'),
});
export const webhookSubscriptionPage = page(webhookSubscription);

export const webhookDelivery = z.object({
  id: z.string().describe('the X-Policy-Webhook-Id of its requests'),
  eventId: z.string().describe('the `id` of the body: the same for every delivery of the event'),
  type: z.enum(WEBHOOK_EVENT_TYPES),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
});
export const webhookDeliveryPage = page(webhookDelivery);
