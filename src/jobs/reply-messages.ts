import type { SerializedItemResult } from '../engine/index.js';

/** A reply message carries results up to this size (one larger result travels alone). */
export const DEFAULT_REPLY_MESSAGE_BYTES = 512 * 1024;

/**
 * The reply messages of a batch, each a `PolicyEvaluateReply` of bounded size: a large answer can
 * never exceed what Redis lets a pub/sub client buffer and drop the channel other requests wait
 * on. Results are already JSON text (made in the threads), so this only concatenates.
 */
export function replyMessages(batchId: string, results: readonly SerializedItemResult[], maxBytes = DEFAULT_REPLY_MESSAGE_BYTES): string[] {
  const head = (from: number) => `{"batchId":${JSON.stringify(batchId)},"from":${from},"results":[`;
  const messages: string[] = [];
  let parts: string[] = [];
  let bytes = 0;
  let from = 0;
  results.forEach((result, index) => {
    const size = Buffer.byteLength(result.json);
    if (parts.length > 0 && bytes + size > maxBytes) {
      messages.push(`${head(from)}${parts.join(',')}]}`);
      parts = [];
      bytes = 0;
      from = index;
    }
    parts.push(result.json);
    bytes += size + 1;
  });
  if (parts.length > 0 || messages.length === 0) messages.push(`${head(from)}${parts.join(',')}]}`);
  return messages;
}
