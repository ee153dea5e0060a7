import { resolve } from 'node:path';
import type { Config } from './env-schema.js';

export const SQLITE_FILE_NAME = 'policy-engine.sqlite';

export interface StoreLocation {
  mongodbUrl?: string;
  mongodbDatabase?: string;
  mongodbTimeouts?: { serverSelectionMs: number; connectMs: number; socketMs: number };
  /** Used when no MongoDB URL is configured. */
  sqlitePath: string;
}

/** Where this configuration keeps its data: MongoDB when MONGODB_URL is set, else SQLite under DATA_DIR. */
export function storeLocation(config: Config): StoreLocation {
  const location: StoreLocation = { sqlitePath: resolve(config.DATA_DIR, SQLITE_FILE_NAME) };
  if (config.MONGODB_URL !== undefined) location.mongodbUrl = config.MONGODB_URL;
  if (config.MONGODB_DATABASE !== undefined) location.mongodbDatabase = config.MONGODB_DATABASE;
  location.mongodbTimeouts = {
    serverSelectionMs: config.MONGODB_SERVER_SELECTION_TIMEOUT_MS,
    connectMs: config.MONGODB_CONNECT_TIMEOUT_MS,
    socketMs: config.MONGODB_SOCKET_TIMEOUT_MS,
  };
  return location;
}

/** Where the data is, for people: `SQLite at <path>` or `MongoDB at <url, password masked> (<database>)`. */
export function describeStore(location: StoreLocation): string {
  if (location.mongodbUrl === undefined) return `SQLite at ${location.sqlitePath}`;
  return `MongoDB at ${redactUrl(location.mongodbUrl)}${location.mongodbDatabase === undefined ? '' : ` (${location.mongodbDatabase})`}`;
}

/** A connection URL fit for messages and logs: any password is masked. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparsable URL>';
  }
}
