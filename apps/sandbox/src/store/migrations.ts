import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type Postgrator from 'postgrator';
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
  if (await upToDate(db)) return [];
  // Loaded only now: a start on a store that is up to date does without it and its glob.
  const { default: Postgrator } = await import('postgrator');
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
 * Whether the store records every migration file with the checksum it has now: then there
 * is nothing to run, and a start skips postgrator, whose first look at the catalog (through
 * information_schema) takes PGlite a few hundred milliseconds. Anything else, postgrator
 * decides. A store that records a migration this sandbox lacks was made by a newer one.
 */
async function upToDate(db: Database): Promise<boolean> {
  const recorded = await db.read(async (tx) => {
    const { rows } = await tx.query<{ found: boolean }>(
      'SELECT to_regclass($1) IS NOT NULL AS found',
      [versionTable],
    );
    if (!rows[0]?.found) return undefined;
    return (
      await tx.query<{ version: number; md5: string | null }>(
        `SELECT version, md5 FROM ${versionTable} WHERE version > 0`,
      )
    ).rows;
  });
  if (!recorded) return false;
  // Read synchronously: a few small files, before the server takes calls, where the thread
  // pool that asynchronous reads queue on is still busy with the store's own start.
  const files = new Map(
    readdirSync(migrationsDir)
      .filter((name) => name.endsWith('.sql'))
      .map((name) => [
        Number(name.slice(0, name.indexOf('.'))),
        createHash('md5')
          .update(readFileSync(`${migrationsDir}${name}`, 'utf8'))
          .digest('hex'),
      ]),
  );
  const unknown = recorded.find(({ version }) => !files.has(Number(version)));
  if (unknown) {
    throw new Error(
      `The store records migration ${unknown.version}, which this sandbox does not have: it was made by a newer or a different sandbox.`,
    );
  }
  const md5s = new Map(recorded.map(({ version, md5 }) => [Number(version), md5]));
  return [...files].every(([version, md5]) => md5s.get(version) === md5);
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
    const { rows: tables } = await tx.query<{ legacy: boolean; current: boolean }>(
      `SELECT to_regclass('schema_migrations') IS NOT NULL AS legacy,
         to_regclass($1) IS NOT NULL AS current`,
      [versionTable],
    );
    if (!tables[0]?.legacy || tables[0].current) return;
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
