// The sandbox's PGlite, on a thread of its own: Postgres in WebAssembly takes about half of
// what a write costs, and on the thread that serves calls it stopped them while it ran. Here it
// runs beside them, on another core. Plain JavaScript: a worker is started by Node itself,
// from the sources in tests as from the bundle.
//
// Every message is one request, answered in turn with its id: `{ id, ok }` or `{ id, error }`.
// The first, `open`, names the store; the thread may be started before it is known.
// Requests run in the order they are sent, each once the last is answered: `database.ts` sends
// BEGIN, and a read's COMMIT, without waiting for them, and queues its units of work.
import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

/** A freshly initialised, empty cluster, dumped; built once per PGlite installation. */
async function emptyCluster(emptyClusterImage, rebuild = false) {
  const cached = rebuild ? undefined : await readFile(emptyClusterImage).catch(() => undefined);
  if (cached) return new Blob([cached]);
  const db = await PGlite.create();
  const image = await db.dumpDataDir('none');
  await db.close();
  // Written aside and renamed, so a concurrent reader never sees half an image.
  const partial = `${emptyClusterImage}.${process.pid}.${Math.random()}.partial`;
  await writeFile(partial, Buffer.from(await image.arrayBuffer()));
  await rename(partial, emptyClusterImage);
  return image;
}

/**
 * PGlite in memory or under `dataDir`. initdb in WebAssembly takes seconds and tests start many
 * stores, so a new cluster is loaded from the image of an empty one kept in the temporary
 * folder; the image holds no data of any run.
 */
async function open({ dataDir, emptyClusterImage, ...options }) {
  const startParams = [...PGlite.defaultStartParams, ...options.startParams];
  if (dataDir !== undefined && existsSync(`${dataDir}/PG_VERSION`)) {
    return PGlite.create({ dataDir, startParams });
  }
  try {
    const loadDataDir = await emptyCluster(emptyClusterImage);
    return await PGlite.create({ dataDir, startParams, loadDataDir });
  } catch {
    // A damaged image: build it again.
    const loadDataDir = await emptyCluster(emptyClusterImage, true);
    return PGlite.create({ dataDir, startParams, loadDataDir });
  }
}

/** An error as plain data, with the fields Postgres gave it (code, detail, ...). */
const plain = (error) => ({
  ...error,
  name: error?.name,
  message: String(error?.message ?? error),
});

/** The store, once the first request (`open`) has named and opened it. */
let db;

const store = () => {
  if (!db) throw new Error('The store was never opened');
  return db;
};

/** @type {Record<string, (request: any) => Promise<unknown>>} */
const operations = {
  open: async (request) => {
    db = await open(request);
  },
  exec: async ({ sql }) => {
    await store().exec(sql);
  },
  query: async ({ sql, params }) => ({ rows: (await store().query(sql, params)).rows }),
  // The bytes, handed over rather than copied: a start reads megabytes of them.
  copyOut: async ({ select }) => {
    const { blob } = await store().query(`COPY (${select}) TO '/dev/blob'`);
    return blob ? blob.arrayBuffer() : new ArrayBuffer(0);
  },
  close: async () => {
    await store().close();
  },
};

/** One request, answered: the next starts only once it is, so they run in the order sent. */
async function answer(request) {
  try {
    const ok = await operations[request.op](request);
    parentPort?.postMessage({ id: request.id, ok }, ok instanceof ArrayBuffer ? [ok] : []);
    if (request.op === 'close') parentPort?.close();
  } catch (error) {
    parentPort?.postMessage({ id: request.id, error: plain(error) });
  }
}

let answered = Promise.resolve();
parentPort?.on('message', (request) => {
  answered = answered.then(() => answer(request));
});
