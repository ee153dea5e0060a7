import type { Config } from '../config/index.js';
import { BuiltinLibraryError, loadBuiltinLibrary, type BuiltinModule } from '../policies/index.js';
import { StartupError } from './startup-error.js';

/** A built-in module that does not compile stops the start-up: domain queries must not silently miss it. */
export async function loadBuiltins(config: Config): Promise<BuiltinModule[]> {
  try {
    return await loadBuiltinLibrary(config.BUILTIN_POLICY_DIR);
  } catch (error) {
    if (error instanceof BuiltinLibraryError) throw new StartupError(`cannot load the built-in policy library: ${error.message}`);
    throw error;
  }
}
