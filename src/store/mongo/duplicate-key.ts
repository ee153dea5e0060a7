import { MongoBulkWriteError, MongoServerError } from 'mongodb';

const DUPLICATE_KEY = 11000;

/** A write refused by a unique index: the race it decides was lost. */
export function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}

/** How many documents an ordered insert stored before a duplicate key; rethrows anything else. */
export function insertedBeforeDuplicate(error: unknown, attempted: number): number {
  if (error instanceof MongoBulkWriteError) {
    const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
    const first = [...writeErrors].sort((a, b) => a.index - b.index)[0];
    if (first !== undefined && first.code === DUPLICATE_KEY && first.index < attempted) return first.index;
  }
  throw error;
}

/** The positions an unordered insert refused as duplicate keys; rethrows any other failure. */
export function duplicateKeyPositions(error: unknown): number[] {
  if (!(error instanceof MongoBulkWriteError)) throw error;
  const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  if (writeErrors.length === 0 || writeErrors.some((e) => e.code !== DUPLICATE_KEY)) throw error;
  return writeErrors.map((e) => e.index);
}
