import { describe } from 'vitest';
import { sqliteTarget } from '../support/store-targets.js';
import { runStoreContract } from './store-contract.js';

describe('SQLite store contract', () => {
  runStoreContract(sqliteTarget);
});
