import { fileURLToPath } from 'node:url';
import Postgrator from 'postgrator';
import type { Database } from './database.js';

const migrationsDir = fileURLToPath(new URL('./migrations/', import.meta.url));

/** Where postgrator records the migrations it applied: its own table, by its own name. */
const versionTable = 'schemaversion';

/**
 * Applies the migrations of src/store/migrations (`NNNN.do.name.sql`) in version order with
 * postgrator. Each file runs as one multi-statement script, which PostgreSQL and PGlite
 * both run in one transaction; postgrator then records it with its checksum, and refuses
 * to start on a store whose applied migrations were edited since. Resolves to the files
 * applied now.
 */
export async function migrate(db: Database): Promise<string[]> {
  const postgrator = new Postgrator({
    driver: 'pg',
    migrationPattern: `${migrationsDir}*.sql`,
    schemaTable: versionTable,
    execQuery: (sql) => db.transaction((tx) => tx.query(sql)),
    execSqlScript: (script) => db.apply(script),
  });
  await adoptLegacyBookkeeping(db, await postgrator.getMigrations());
  const applied = await postgrator.migrate();
  return applied.map((migration) => migration.filename.slice(migrationsDir.length));
}

/**
 * Stores made before postgrator ran their migrations recorded each as `NNNN_name` in
 * `schema_migrations`. Those rows move to postgrator's table, with the checksum of the file
 * of that version, so the store opens as if postgrator had applied them; it is done in one
 * transaction, once, and the old table goes.
 */
async function adoptLegacyBookkeeping(
  db: Database,
  migrations: Postgrator.Migration[],
): Promise<void> {
  await db.transaction(async (tx) => {
    const { rows: tables } = await tx.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
       WHERE table_schema = current_schema() AND table_name IN ('schema_migrations', $1)`,
      [versionTable],
    );
    const names = new Set(tables.map((table) => table.name));
    if (!names.has('schema_migrations') || names.has(versionTable)) return;
    const { rows: legacy } = await tx.query<{ version: string; applied_at: number }>(
      'SELECT version, applied_at FROM schema_migrations',
    );
    // The same shape postgrator gives its table, version 0 included.
    await tx.query(
      `CREATE TABLE ${versionTable} (
         version bigint PRIMARY KEY, name text, md5 text, run_at timestamp with time zone)`,
    );
    await tx.query(`INSERT INTO ${versionTable} (version) VALUES (0)`);
    for (const { version, applied_at } of legacy) {
      // `0001_exchange` was the file `0001_exchange.sql`, now `0001.do.exchange.sql`.
      const migration = migrations.find(
        (candidate) =>
          candidate.action === 'do' &&
          `${String(candidate.version).padStart(4, '0')}_${candidate.name}` === version,
      );
      if (!migration) {
        throw new Error(
          `The store records migration ${version}, which this sandbox does not have: it was made by a newer or a different sandbox.`,
        );
      }
      await tx.query(
        `INSERT INTO ${versionTable} (version, name, md5, run_at)
         VALUES ($1, $2, $3, to_timestamp($4::double precision / 1000))`,
        [migration.version, migration.name, migration.md5, applied_at],
      );
    }
    await tx.query('DROP TABLE schema_migrations');
  });
}
