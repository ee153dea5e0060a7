/** Arguments a repository refuses before touching storage. */
export class StoreArgumentError extends Error {
  override readonly name = 'StoreArgumentError';
}
