import type { SerializedItemResult } from '../engine/index.js';

/** Largest reply message in bytes, envelope included (a larger single result travels alone). */
export const DEFAULT_REPLY_MESSAGE_BYTES = 512 * 1024;

/**
 * The reply messages of a batch, each a `PolicyEvaluateReply` of bounded size: a large answer can
 * never exceed what Redis lets a pub/sub client buffer and drop the channel other requests wait
 * on. Results are already JSON text (made in the threads), so this only concatenates.
 */
export function replyMessages(batchId: string, results: readonly SerializedItemResult[], maxBytes = DEFAULT_REPLY_MESSAGE_BYTES): string[] {
  const head = (from: number) => `{"batchId":${JSON.stringify(batchId)},"from":${from},"results":[`;
  const tail = ']}';
  const messages: string[] = [];
  let parts: string[] = [];
  /** Bytes of the message being gathered: envelope, results and the commas between them. */
  let bytes = 0;
  let from = 0;
  const emit = () => messages.push(`${head(from)}${parts.join(',')}${tail}`);
  results.forEach((result, index) => {
    const size = Buffer.byteLength(result.json);
    if (parts.length > 0 && bytes + 1 + size > maxBytes) {
      emit();
      parts = [];
      from = index;
    }
    if (parts.length === 0) bytes = Buffer.byteLength(head(from)) + tail.length + size;
    else bytes += 1 + size;
    parts.push(result.json);
  });
  if (parts.length > 0 || messages.length === 0) emit();
  return messages;
}
