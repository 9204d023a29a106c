// The sandbox's PGlite, on a thread of its own: Postgres in WebAssembly takes about half of
// what a write costs, and on the thread that serves calls it stopped them while it ran. Here it
// runs beside them, on another core. Plain JavaScript: a worker is started by Node itself,
// from the sources in tests as from the bundle.
//
// Every message is one request, answered in turn with its id: `{ id, ok }` or `{ id, error }`.
// The first, `open`, names the store; the thread may be started before it is known.
// Its thread of calls (`database.ts`) sends a transaction's statements one after another, and
// the next unit of work only once the last is answered.
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

/** The store, once the first request (`open`) names it. */
let opened;

/** @type {Record<string, (db: PGlite, request: any) => Promise<unknown>>} */
const operations = {
  exec: async (db, { sql }) => {
    await db.exec(sql);
  },
  query: async (db, { sql, params }) => ({ rows: (await db.query(sql, params)).rows }),
  // The bytes, handed over rather than copied: a start reads megabytes of them.
  copyOut: async (db, { select }) => {
    const { blob } = await db.query(`COPY (${select}) TO '/dev/blob'`);
    return blob ? blob.arrayBuffer() : new ArrayBuffer(0);
  },
  open: async () => undefined,
  close: async (db) => {
    await db.close();
  },
};

parentPort?.on('message', async (request) => {
  try {
    if (request.op === 'open') opened = open(request);
    const db = await opened;
    if (!db) throw new Error('The store was never opened');
    const ok = await operations[request.op]?.(db, request);
    parentPort?.postMessage({ id: request.id, ok }, ok instanceof ArrayBuffer ? [ok] : []);
    if (request.op === 'close') parentPort?.close();
  } catch (error) {
    parentPort?.postMessage({ id: request.id, error: plain(error) });
  }
});
