import { MongoServerError } from 'mongodb';

const DUPLICATE_KEY = 11000;

/** A write refused by a unique index: the race it decides was lost. */
export function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}
