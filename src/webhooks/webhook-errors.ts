import { ClientError } from '../errors/index.js';

/** Stable codes of the webhook endpoints (`ERR_WEBHOOK_*`). */
export const WebhookErrorCode = {
  /** 400: the body or a query parameter is not what the endpoint takes. */
  REQUEST_INVALID: 'ERR_WEBHOOK_REQUEST_INVALID',
  /** 400: the URL names a destination the service does not send to (scheme, credentials, a refused address). */
  URL_NOT_ALLOWED: 'ERR_WEBHOOK_URL_NOT_ALLOWED',
  /** 404: the tenant has no subscription (or delivery of it) with that id. */
  NOT_FOUND: 'ERR_WEBHOOK_NOT_FOUND',
  /** 409: the tenant has WEBHOOK_MAX_PER_TENANT subscriptions. */
  SUBSCRIPTION_LIMIT: 'ERR_WEBHOOK_SUBSCRIPTION_LIMIT',
} as const;

/** A refusal of the webhook endpoints that the client sees as it is. */
export class WebhookError extends ClientError {
  override readonly name: string = 'WebhookError';
}
