/**
 * A numbered schema step. Migrations are TypeScript modules rather than .sql files so that the
 * compiled build carries them without a copy step. Never edit an applied migration: add the next.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
