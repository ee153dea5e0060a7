// A UUID of version 7 from raw parts (the time in ms, then randomUUID's random bits), as the service
// names audit records: the raw floors insert ids in the same order as the service does.
import { randomUUID } from 'node:crypto';

export function timeOrderedUuid() {
  const time = Date.now().toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${randomUUID().slice(15)}`;
}
