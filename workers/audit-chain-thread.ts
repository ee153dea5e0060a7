// Piscina thread entry, loaded by path from dist/workers/audit-chain-thread.js (see src/audit/chain-page-threads.ts).
import { checkChainPage, type ChainPosition, type PageCheck } from '../src/audit/chain-page-check.js';
import type { AuditRecord } from '../src/audit/index.js';

export default function checkPage(task: { records: AuditRecord[]; from: ChainPosition }): PageCheck {
  return checkChainPage(task.records, task.from);
}
