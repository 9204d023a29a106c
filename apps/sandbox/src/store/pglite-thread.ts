import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

// The image belongs to one installed PGlite: named after where it is installed and when.
const pgliteEntry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
const pgliteBuild = createHash('sha256')
  .update(`${pgliteEntry}:${statSync(pgliteEntry).mtimeMs}`)
  .digest('hex')
  .slice(0, 16);
const emptyClusterImage = join(tmpdir(), `exchange-kit-sandbox-pglite-${pgliteBuild}.tar`);

/**
 * PGlite's own start parameters, with a smaller buffer cache. Its default (initdb's 128MB,
 * about 160MB in pages) is most of a sandbox's resident memory from the first call on, and
 * filling it costs the start a tenth of a second; a sandbox's working set (the open orders,
 * the last pages of history) fits in a fifth of it, and the pages beyond are read from the
 * operating system's cache of the data folder.
 */
const startParams = ['-c', 'shared_buffers=32MB'];

// Beside this module: the sources' in tests, the bundle's copy in dist/.
const workerFile = new URL('./pglite-worker.mjs', import.meta.url);

const utf8 = new TextDecoder();

const newWorker = () => new Worker(workerFile, { resourceLimits: { maxYoungGenerationSizeMb: 4 } });

let spare: Worker | undefined;

/**
 * Starts the store's thread ahead of the store: a thread takes about a tenth of a second to
 * start and load PGlite, which the command's own modules then load beside instead of before.
 * The first store opened takes it; a sandbox on PostgreSQL lets it go (`dropSpare`).
 */
export function prestart(): void {
  spare ??= newWorker();
  // Waiting for its store, it keeps the process from nothing.
  spare.unref();
}

/** Ends the thread `prestart` started, if no store took it. */
export function dropSpare(): void {
  void spare?.terminate();
  spare = undefined;
}

type Answer = { id: number; ok?: unknown; error?: Record<string, unknown> & { message: string } };

/**
 * PGlite on a thread of its own (`pglite-worker.mjs`), in memory or under `dataDir`: one
 * connection, each request answered in turn. Its errors come back as errors with the fields
 * Postgres gave them.
 */
export class PgliteThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { resolve(value: unknown): void; reject(e: Error): void }>();
  #next = 0;
  #failure: Error | undefined;

  private constructor(worker: Worker) {
    this.#worker = worker;
    this.#worker.on('message', ({ id, ok, error }: Answer) => {
      const waiting = this.#waiting.get(id);
      this.#waiting.delete(id);
      if (this.#waiting.size === 0) this.#worker.unref();
      if (error) waiting?.reject(Object.assign(new Error(error.message), error));
      else waiting?.resolve(ok);
    });
    // A thread that ended or failed answers nothing more: whoever waits is told why.
    const fail = (error: Error) => {
      this.#failure ??= error;
      for (const waiting of this.#waiting.values()) waiting.reject(this.#failure);
      this.#waiting.clear();
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', () => fail(new Error('The store has closed')));
  }

  /** The store opened, on the thread `prestart` started if there is one, or its reason not to. */
  static async open(dataDir?: string): Promise<PgliteThread> {
    const thread = new PgliteThread(spare ?? newWorker());
    spare = undefined;
    try {
      await thread.#request({ op: 'open', dataDir, startParams, emptyClusterImage });
    } catch (error) {
      await thread.#worker.terminate();
      throw error;
    }
    return thread;
  }

  #request<T>(request: Record<string, unknown>): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      this.#waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      // A request on its way keeps the process running until it is answered; an idle store,
      // as PGlite on the calls' own thread did, keeps nothing running.
      this.#worker.ref();
      this.#worker.postMessage({ ...request, id });
    });
  }

  exec(sql: string): Promise<void> {
    return this.#request({ op: 'exec', sql });
  }

  query<Row>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }> {
    return this.#request({ op: 'query', sql, params });
  }

  /** The rows of `select` in COPY's text format. */
  async copyOut(select: string): Promise<string> {
    return utf8.decode(await this.#request<ArrayBuffer>({ op: 'copyOut', select }));
  }

  async close(): Promise<void> {
    await this.#request({ op: 'close' });
    await this.#worker.terminate();
  }
}
