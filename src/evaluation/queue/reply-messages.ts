/** Largest reply message in bytes, envelope included (a larger single result travels alone). */
export const DEFAULT_REPLY_MESSAGE_BYTES = 512 * 1024;

/** One settled item of a batch: its place in the batch and its result as JSON text. */
export interface SettledItem {
  position: number;
  json: string;
}

/**
 * Reply messages for settled items of a batch, each a `PolicyEvaluateReply` of bounded size: a
 * large answer can never exceed what Redis lets a pub/sub client buffer and drop the channel other
 * requests wait on. Results are already JSON text (made in the threads), so this only concatenates.
 */
export function replyMessages(batchId: string, items: readonly SettledItem[], maxBytes = DEFAULT_REPLY_MESSAGE_BYTES): string[] {
  const head = `{"batchId":${JSON.stringify(batchId)},"results":[`;
  const tail = ']}';
  const envelope = Buffer.byteLength(head) + tail.length;
  const messages: string[] = [];
  let parts: string[] = [];
  /** Bytes of the message being gathered: envelope, entries and the commas between them. */
  let bytes = envelope;
  const emit = () => messages.push(`${head}${parts.join(',')}${tail}`);
  for (const { position, json } of items) {
    const entry = `[${position},${json}]`;
    const size = Buffer.byteLength(entry);
    if (parts.length > 0 && bytes + 1 + size > maxBytes) {
      emit();
      parts = [];
      bytes = envelope;
    }
    bytes += (parts.length > 0 ? 1 : 0) + size;
    parts.push(entry);
  }
  if (parts.length > 0) emit();
  return messages;
}
