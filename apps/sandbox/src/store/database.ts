import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { dropSpare, PgliteThread } from './pglite-thread.js';
import type { Queryable } from './queryable.js';

export type { Queryable };

/** A store: every unit of work runs in `transaction`, which commits when `work` resolves. */
export interface Database {
  /** Runs `work` in one transaction; a rejection rolls the whole transaction back. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs `work`, which changes nothing, in one transaction. */
  read<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Writes `statements` (SQL with its values inlined, separated by semicolons) in one
   * transaction: a multi-statement query commits whole or not at all. `prepared` names the
   * PREPARE statements they EXECUTE, run once on the connection that writes.
   */
  apply(statements: string, prepared?: Record<string, string>): Promise<void>;
  /**
   * Reclaims the room of rows that writes replaced. PostgreSQL's autovacuum does it on its
   * own; PGlite runs none, and its tables and the time to read them at start would grow with
   * every edit.
   */
  reclaim?(): Promise<void>;
  /**
   * Analyses the tables whose planner statistics are missing or stale (see tablesToAnalyze).
   * PostgreSQL's autovacuum does it on its own; PGlite runs none, and a plan made without
   * statistics may read a whole history for one page of it.
   */
  analyze?(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The tables `Database.analyze` analyses: holding rows and no statistics at all (a store
 * written in bulk, or before the sandbox analysed), or with as many rows changed since their
 * last analysis as they held then. That is ten times autovacuum's share: the planner scales
 * the rows it expects by a table's size as it is, so statistics go stale only as the rows
 * change in kind, and PGlite's analysis stops every write while it runs. A table of fewer than
 * a thousand rows waits until it has doubled as well: its rows rewritten in place (accounts,
 * nonces, the counts) are read by their keys however they change, and analysing them at every
 * look took a millisecond each. The counts of changes are this process's; the statistics stay
 * in the store.
 */
const tablesToAnalyze = `SELECT format('%I', s.relname) AS name FROM pg_stat_user_tables s
  JOIN pg_class c ON c.oid = s.relid
  WHERE (s.n_mod_since_analyze > 50 + greatest(c.reltuples, 0)
         AND (c.reltuples >= 1000 OR s.n_live_tup > 50 + 2 * greatest(c.reltuples, 0)))
     OR (pg_relation_size(c.oid) > 0
         AND NOT EXISTS (SELECT 1 FROM pg_statistic st WHERE st.starelid = c.oid))`;

/**
 * The tables `Database.reclaim` vacuums: those holding rows that writes replaced. A VACUUM of
 * the whole store went through every table and catalog, the histories that are only added to
 * among them, at every pass.
 */
const tablesToReclaim = `SELECT format('%I.%I', schemaname, relname) AS name FROM pg_stat_all_tables
  WHERE n_dead_tup > 0 AND schemaname IN ('public', 'pg_catalog')`;

export type StoreOptions = { memory: true } | { dataDir: string } | { databaseUrl: string };

/**
 * PGlite is one connection: a query issued while another caller's transaction is open would
 * run inside it. Every unit of work therefore goes through one queue, so transactions never
 * interleave and each one sees the committed effects of the ones before it.
 */
class PgliteDatabase implements Database {
  #tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: PgliteThread,
    private readonly release: () => void = () => undefined,
  ) {}

  #enqueue<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work);
    this.#tail = result.catch(() => undefined);
    return result;
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#unitOfWork(work, true);
  }

  read<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#unitOfWork(work, false);
  }

  /**
   * `work` between BEGIN and COMMIT. The thread runs requests in the order they are sent, so
   * BEGIN goes ahead unanswered, the first query behind it; its failure is the unit's. A read
   * sends its COMMIT the same way, since the next unit's requests queue behind it: a page
   * costs its queries' round trips alone.
   */
  #unitOfWork<T>(work: (tx: Queryable) => Promise<T>, writes: boolean): Promise<T> {
    return this.#enqueue(async () => {
      const begun = this.db.exec('BEGIN');
      let result: T;
      try {
        result = await work({
          query: (sql, params) => this.db.query(sql, params),
          copyOut: (select) => this.db.copyOut(select),
        });
        await begun;
      } catch (error) {
        begun.catch(() => undefined);
        await this.db.exec('ROLLBACK').catch(() => undefined);
        throw error;
      }
      const committed = this.db.exec('COMMIT');
      if (writes) await committed;
      else committed.catch(() => undefined);
      return result;
    });
  }

  readonly #prepared = new Set<string>();

  async apply(statements: string, prepared: Record<string, string> = {}): Promise<void> {
    await this.#enqueue(async () => {
      for (const [name, sql] of Object.entries(prepared)) {
        if (this.#prepared.has(name)) continue;
        await this.db.exec(sql);
        this.#prepared.add(name);
      }
      await this.db.exec(statements);
    });
  }

  /** The tables `select` names from the store's counts of their rows (`tablesToReclaim`, `tablesToAnalyze`). */
  #tablesNamedBy(select: string): Promise<string[]> {
    return this.#enqueue(async () => {
      // The counts reach the views once flushed, which PGlite leaves for later.
      await this.db.query('SELECT pg_stat_force_next_flush()');
      const { rows } = await this.db.query<{ name: string }>(select);
      return rows.map(({ name }) => name);
    });
  }

  async reclaim(): Promise<void> {
    const tables = await this.#tablesNamedBy(tablesToReclaim);
    if (tables.length === 0) return;
    await this.#enqueue(() => this.db.exec(`VACUUM ${tables.join(', ')}`));
  }

  async analyze(): Promise<void> {
    const tables = await this.#tablesNamedBy(tablesToAnalyze);
    // A table at a time: writes get a turn between.
    // A sample a tenth of PostgreSQL's default: enough to tell whose rows a table holds, and
    // a tenth of the pages read.
    const analyze = (name: string) =>
      this.db.exec(
        `SET default_statistics_target = 10; ANALYZE ${name}; RESET default_statistics_target`,
      );
    await Promise.all(tables.map((name) => this.#enqueue(() => analyze(name))));
  }

  close(): Promise<void> {
    return this.#enqueue(async () => {
      await this.db.close();
      this.release();
    });
  }
}

// Any numbers work as long as every sandbox uses the same ones.
/** The lock every write to PostgreSQL holds while it writes: holding it queues the writes. */
export const writeLockKey = 4_000_001;
const ownerLockKey = 4_000_002;

/**
 * node-postgres over a pool. Each transaction first takes one transaction-scoped advisory
 * lock, which serialises the sandbox's units of work (batches, fixtures, seeds) across the
 * pool's connections; calls themselves are decided in memory, one at a time, and need no
 * row lock.
 */
class PostgresDatabase implements Database {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Opens the store at `url` for one sandbox. The exchange is decided in one process's memory,
   * so a second sandbox writing to the same database would hand out the same ids: the first
   * holds a session lock on its writer connection, and another is refused at start.
   */
  static async open(url: string): Promise<PostgresDatabase> {
    // Loaded only here: most runs use PGlite, and every start pays for what it imports.
    const { default: postgres } = await import('pg');
    const pool = new postgres.Pool({ connectionString: url, types: postgresTypes(postgres.types) });
    const database = new PostgresDatabase(pool);
    try {
      await database.#writerConnection();
    } catch (error) {
      await pool.end();
      throw error;
    }
    return database;
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#run(work, true);
  }

  // Batches are written one at a time, on one connection that keeps its prepared statements.
  #writer: Promise<{ client: pg.PoolClient; prepared: Set<string> }> | undefined;
  #writes: Promise<unknown> = Promise.resolve();

  #writerConnection(): Promise<{ client: pg.PoolClient; prepared: Set<string> }> {
    this.#writer ??= this.pool.connect().then(async (client) => {
      // A broken connection is dropped; the next batch opens another.
      client.on('error', () => {
        this.#writer = undefined;
        client.release(true);
      });
      const { rows } = await client.query<{ owned: boolean }>(
        'SELECT pg_try_advisory_lock($1) AS owned',
        [ownerLockKey],
      );
      if (!rows[0]?.owned) {
        this.#writer = undefined;
        client.release(true);
        throw new Error(
          'Another sandbox is using this PostgreSQL database: give each sandbox a database of its own.',
        );
      }
      return { client, prepared: new Set<string>() };
    });
    return this.#writer;
  }

  apply(statements: string, prepared: Record<string, string> = {}): Promise<void> {
    const written = this.#writes.then(async () => {
      const writer = await this.#writerConnection();
      for (const [name, sql] of Object.entries(prepared)) {
        if (writer.prepared.has(name)) continue;
        await writer.client.query(sql);
        writer.prepared.add(name);
      }
      await writer.client.query(`SELECT pg_advisory_xact_lock(${writeLockKey});\n${statements}`);
    });
    this.#writes = written.catch(() => undefined);
    return written;
  }

  /** A snapshot of committed data; it takes no lock, so it waits for no writer. */
  read<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#run(work, false);
  }

  async #run<T>(work: (tx: Queryable) => Promise<T>, write: boolean): Promise<T> {
    const client = await this.pool.connect();
    try {
      if (write) {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1)', [writeLockKey]);
      } else {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      }
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.#writes;
    const writer = await this.#writer?.catch(() => undefined);
    // Given back here rather than when the server notices the connection closed, which it
    // does in its own time: a sandbox started right after this one closes must find it free.
    await writer?.client
      .query('SELECT pg_advisory_unlock($1)', [ownerLockKey])
      .catch(() => undefined);
    writer?.client.release();
    await this.pool.end();
  }
}

// node-postgres returns int8 as a string; PGlite returns a number. Ids and Unix times fit a
// double, so both stores hand domain code numbers. numeric stays a string in both.
const int8Oid = 20;
const postgresTypes = (types: typeof pg.types): pg.CustomTypesConfig => ({
  getTypeParser: ((oid: number, format?: string) =>
    oid === int8Oid
      ? (value: string) => Number(value)
      : types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
});

/**
 * Claims `dataDir` for this process. PGlite has no lock of its own, and two processes
 * writing one folder would corrupt it: a second is refused while the first runs. A claim
 * left by a process that no longer runs (killed) is taken over. Returns the release.
 */
function claimDataDir(dataDir: string): () => void {
  const lock = join(dataDir, 'sandbox.pid');
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return () => rmSync(lock, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number(readFileSync(lock, 'utf8'));
    if (Number.isInteger(owner) && owner > 0 && isRunning(owner)) {
      throw new Error(
        `Another sandbox (process ${owner}) is using the data folder ${dataDir}: stop it, or give this one a data folder of its own (--data-dir; SANDBOX_DATA_DIR for pnpm start).`,
      );
    }
    rmSync(lock, { force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/**
 * Whether `pid` ended and waits only for its parent to read its status: a sandbox killed a
 * moment ago holds its data folder no more, and a supervisor restarting it at once must not
 * be refused. Linux says so in /proc; elsewhere a process that answers runs.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command, which is in parentheses and may hold any character.
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/**
 * The database `opening` resolves to, taking work before it is open: each unit waits for it,
 * in the order given, and fails as the opening does. What a start builds beside the store
 * (its routes) is built while PGlite opens on its thread. Reclaiming and analysing are asked
 * of every store here, and do nothing on one that does them alone.
 */
export function whenOpen(opening: Promise<Database>): Database {
  return {
    transaction: (work) => opening.then((db) => db.transaction(work)),
    read: (work) => opening.then((db) => db.read(work)),
    apply: (statements, prepared) => opening.then((db) => db.apply(statements, prepared)),
    reclaim: () => opening.then((db) => db.reclaim?.()),
    analyze: () => opening.then((db) => db.analyze?.()),
    close: () => opening.then((db) => db.close()),
  };
}

/** Opens PGlite in memory or under a data folder, or PostgreSQL at a connection URL. */
export async function openDatabase(options: StoreOptions): Promise<Database> {
  if ('databaseUrl' in options) {
    dropSpare();
    return PostgresDatabase.open(options.databaseUrl);
  }
  if (!('dataDir' in options)) return new PgliteDatabase(await PgliteThread.open());
  mkdirSync(options.dataDir, { recursive: true });
  const release = claimDataDir(options.dataDir);
  try {
    return new PgliteDatabase(await PgliteThread.open(options.dataDir), release);
  } catch (error) {
    release();
    throw error;
  }
}
