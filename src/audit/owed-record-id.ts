import { createHash } from 'node:crypto';

/**
 * The id of an audit record that an entry owes, fixed by the entry's identity: whoever writes the
 * record (the process that stored the entry, or the follower after it failed) writes it with the
 * same id, and can ask the chain whether it is already there. Shaped like every other record id:
 * a UUID, of RFC 9562's version 8 (custom content: here a SHA-256 of the event type and the parts
 * that name the entry).
 */
export function owedRecordId(eventType: string, ...entryParts: string[]): string {
  const bytes = createHash('sha256').update([eventType, ...entryParts].join('\u0000')).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
