export type {
  RollupBucket,
  RollupIncrement,
  RollupQuery,
  RollupRepository,
  RollupScanQuery,
  RollupTotals,
  RollupVersionKey,
} from './rollup-store.js';
