import type { Migration } from './migration.js';

/** Holds version 15's place in the numbered list; it changes nothing. */
export const migration015: Migration = {
  version: 15,
  name: 'reserved',
  sql: '',
};
