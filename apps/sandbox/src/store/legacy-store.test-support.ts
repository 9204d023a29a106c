import { readdirSync, readFileSync } from 'node:fs';
import type { Database } from './database.js';

const migrationsDir = new URL('./migrations/', import.meta.url);

/**
 * Migrates `db` as sandboxes did before postgrator: the first `count` migrations applied,
 * each recorded as `NNNN_name` in `schema_migrations` with its time in Unix milliseconds.
 */
export async function migrateAsFormerRunner(db: Database, count = 4): Promise<void> {
  await db.apply(
    'CREATE TABLE schema_migrations (version text PRIMARY KEY, applied_at bigint NOT NULL)',
  );
  const files = readdirSync(migrationsDir)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .slice(0, count);
  for (const file of files) {
    const [number, , name] = file.split('.');
    await db.apply(readFileSync(new URL(file, migrationsDir), 'utf8'));
    await db.transaction((tx) =>
      tx.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
        `${number}_${name}`,
        Date.now(),
      ]),
    );
  }
}
