/** Every BullMQ queue of the service, declared once. Names are kebab-case and stable (they are Redis keys). */
export const QUEUE_NAMES = {
  policyEvaluate: 'policy-evaluate',
  anomalyDetect: 'anomaly-detect',
  anomalyVerify: 'anomaly-verify',
  workflowRun: 'workflow-run',
  auditAppend: 'audit-append',
  webhookDeliver: 'webhook-deliver',
} as const;

export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

export const DEFAULT_QUEUE_PREFIX = 'pe';

/**
 * The BullMQ `prefix` option for one queue: `{<prefix>:<queue>}`. The braces are a Redis Cluster
 * hashtag, so all keys of one queue share a slot (BullMQ's Lua scripts need that) while different
 * queues spread over the cluster; on a single Redis they are just part of the key. A prefix that
 * already carries a hashtag (`{pe}`) is kept as the operator wrote it: `{pe}:<queue>`.
 */
export function queuePrefix(queue: QueueName, prefix: string = DEFAULT_QUEUE_PREFIX): string {
  if (!/^[A-Za-z0-9_{}:.-]{1,64}$/.test(prefix)) {
    throw new RangeError(`queue prefix must be 1-64 letters, digits, \`_\`, \`.\`, \`:\`, \`-\`, \`{\` or \`}\`, got \`${prefix}\``);
  }
  return prefix.includes('{') ? `${prefix}:${queue}` : `{${prefix}:${queue}}`;
}
