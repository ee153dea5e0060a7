import { describe, it } from 'vitest';

/** The MongoDB-compatible server for integration suites (FerretDB in CI), from MONGODB_URL. */
export const MONGODB_URL: string | undefined = process.env.MONGODB_URL?.trim() || undefined;

const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false' && process.env.CI !== '0';

export const MONGO_SKIP_REASON =
  'MONGODB_URL is not set, so the MongoDB suites are skipped locally (with CI=true they fail instead); ' +
  'run them with e.g. MONGODB_URL=mongodb://127.0.0.1:27018';

/**
 * A describe block that needs MongoDB. Without MONGODB_URL it is skipped with the reason in its
 * name and on stderr; under CI the missing variable is a failing test, never a silent skip.
 */
export function describeWithMongo(name: string, body: (url: string) => void): void {
  if (MONGODB_URL !== undefined) {
    describe(name, () => body(MONGODB_URL));
    return;
  }
  if (inCi) {
    describe(name, () => {
      it('has a MongoDB server to run against', () => {
        throw new Error('MONGODB_URL must be set when CI is set: the MongoDB adapter would go untested');
      });
    });
    return;
  }
  process.stderr.write(`[${name}] ${MONGO_SKIP_REASON}\n`);
  describe.skip(`${name} (skipped: ${MONGO_SKIP_REASON})`, () => body(''));
}

/** Drops a suite's database (its afterAll), closing the client it opens. */
export async function dropMongoDatabase(url: string, database: string): Promise<void> {
  const { MongoClient } = await import('mongodb');
  const client = new MongoClient(url);
  try {
    await client.db(database).dropDatabase();
  } finally {
    await client.close();
  }
}
