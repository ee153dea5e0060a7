import { describeStore, storeLocation } from '../src/config/index.js';
import { openStore, type Store } from '../src/store/index.js';
import { CliError, loadCliConfig, type CliIo } from './cli-io.js';

/**
 * Runs `work` on the store the configuration selects (MONGODB_URL, else SQLite under DATA_DIR),
 * named on stderr so a wrong DATA_DIR shows at once, and closes it after.
 */
export async function withStore<T>(io: CliIo, work: (store: Store) => Promise<T>): Promise<T> {
  const location = storeLocation(loadCliConfig(io));
  const where = describeStore(location);
  let store: Store;
  try {
    store = await openStore(location);
  } catch (error) {
    throw new CliError(`cannot open the store at ${where}: ${(error as Error).message}`);
  }
  io.err(`store: ${where}`);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
