import { readdirSync, readFileSync } from 'node:fs';
import type { Database } from './database.js';

const migrationsDir = new URL('./migrations/', import.meta.url);

/**
 * Applies the migrations of src/store/migrations in file-name order, each in its own
 * transaction together with its row in schema_migrations, so a crash leaves every migration
 * either wholly applied and recorded or not at all.
 */
export async function migrate(db: Database): Promise<string[]> {
  await db.transaction((tx) =>
    tx.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at bigint NOT NULL)',
    ),
  );
  // Read synchronously: a few small files, before the server takes calls, where the thread
  // pool that asynchronous reads queue on is still busy with the store's own start.
  const files = readdirSync(migrationsDir)
    .filter((name) => name.endsWith('.sql'))
    .sort();
  const applied: string[] = [];
  for (const file of files) {
    const version = file.replace(/\.sql$/, '');
    const sql = readFileSync(new URL(file, migrationsDir), 'utf8');
    const done = await db.transaction(async (tx) => {
      const { rows } = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [
        version,
      ]);
      if (rows.length > 0) return false;
      for (const statement of splitStatements(sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
        version,
        Date.now(),
      ]);
      return true;
    });
    if (done) applied.push(version);
  }
  return applied;
}

/**
 * Splits a migration into statements so each runs through the transaction's `query`. The
 * migrations are plain DDL: statements end with a semicolon at the end of a line, and
 * comments are whole lines starting with --.
 */
function splitStatements(sql: string): string[] {
  const withoutComments = sql
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n');
  return withoutComments
    .split(/;\s*$/m)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}
