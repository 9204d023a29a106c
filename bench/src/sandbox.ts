/**
 * The sandbox under load: an order edit/cancel/create mix and public reads, with autocannon
 * at 16 connections, beside the store's own ceiling (the same edit transaction issued to the
 * store directly, no HTTP), Quick Exchange intents (decided in memory, stored in batches)
 * and a stateless mock (Prism) answering the same spec. Also: time from start to `ready` on an
 * existing data folder. Each measure lives in `sandbox/`; this module runs them in one order
 * and writes their rows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  deepBookSentence,
  deepBookTaken,
  markMovedFills,
  markMovedSentence,
} from './sandbox/deep-book.js';
import { busyDayStartup, busyFills, historySentence, historyStartup } from './sandbox/history.js';
import {
  connections,
  type Load,
  loadTableHead,
  medianOf,
  rounds,
  seconds,
  share,
  tableRow,
  writeRounds,
} from './sandbox/load.js';
import {
  buildSandbox,
  postgresStore,
  type Store,
  spawnSandbox,
  startupMs,
} from './sandbox/process.js';
import { prismReads, reads, readsBesideIdle } from './sandbox/reads.js';
import { type Watched, watchers, writesBesideSubscribers } from './sandbox/subscribed-writes.js';
import {
  intentWrites,
  marginFloor,
  matchingWrites,
  storeCeiling,
  writeFixtures,
  writeMix,
} from './sandbox/writes.js';
import { startSubscribers } from './subscribers.js';

/**
 * The write mix against the server in its own process (so autocannon does not share its
 * thread) beside the store's ceiling, measured in this process with the same fixtures, and
 * the margin row's floor on `floorStore`, a store of its own.
 */
async function writesOn(
  store: Store,
  floorStore: Store,
): Promise<Watched & { ceiling: Load; intents: Load; matching: Load; floor: Load }> {
  const { lanes, measured: ceiling } = await writeFixtures(store, (fixtures) =>
    rounds(() => storeCeiling(fixtures)),
  );
  const server = await spawnSandbox(store);
  const subscribers = await startSubscribers();
  let measured: Watched & { ceiling: Load; intents: Load; matching: Load };
  try {
    const watched = await writesBesideSubscribers(server.exchangeUrl, lanes, subscribers);
    const tokens = lanes.map((lane) => lane.token);
    const intents = await rounds(() => intentWrites(server, tokens));
    const matching = await rounds(() => matchingWrites(server.exchangeUrl, tokens));
    measured = { ...watched, ceiling, intents, matching };
  } finally {
    subscribers.stop();
    await server.stop();
  }
  // With the server stopped: the floor runs in this process and has the machine to itself.
  return { ...measured, floor: await marginFloor(floorStore) };
}

/**
 * The write mix and the margin fill alone, rounds in turn on one store: the pair the margin
 * fill's target compares, without the rest of the sandbox's rows (`pnpm bench:only matching`).
 */
export async function matchingBench(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-matching-'));
  const floorDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-floor-'));
  try {
    buildSandbox();
    const rows: string[] = [];
    const postgres = await postgresStore();
    const stores: [string, Store, Store][] = [['PGlite', { dataDir }, { dataDir: floorDir }]];
    if (postgres) stores.push(['PostgreSQL', postgres, (await postgresStore()) as Store]);
    for (const [label, store, floorStore] of stores) {
      const { lanes } = await writeFixtures(store, async () => undefined);
      const server = await spawnSandbox(store);
      try {
        const tokens = lanes.map((lane) => lane.token);
        const writes: Load[] = [];
        const matching: Load[] = [];
        for (let n = 0; n < writeRounds; n++) {
          writes.push(await writeMix(server.exchangeUrl, lanes));
          matching.push(await matchingWrites(server.exchangeUrl, tokens));
        }
        const mix = medianOf(writes);
        const fills = medianOf(matching);
        rows.push(tableRow({ ...mix, name: `${label}: ${mix.name}` }));
        rows.push(tableRow({ ...fills, name: `${label}: ${fills.name} (${share(fills, mix)})` }));
        const floor = await marginFloor(floorStore);
        rows.push(tableRow({ ...floor, name: `${label}: ${floor.name} (${share(floor, mix)})` }));
      } finally {
        await server.stop();
      }
    }
    return [
      '## Margin fills beside the write mix',
      '',
      `autocannon, ${connections} connections, ${seconds} s per round, against the built \`exchange-sandbox\` in its own process; the two rows' rounds in turn on one store, median of ${writeRounds}, lowest-highest in brackets. In brackets after the margin row: its share of the mix (target at least 70%). The floor row makes the same fills ${connections} at a time in the bench's own process, on a store of their own, with no HTTP: each decided and stored as the call is, and nothing else; in brackets, its share of the mix.`,
      '',
      ...loadTableHead,
      ...rows,
    ].join('\n');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await rm(floorDir, { recursive: true, force: true });
  }
}

export async function sandboxBench(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-'));
  const historyDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-history-'));
  const busyDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-busy-'));
  const deepDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-deep-'));
  const marksDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-marks-'));
  const floorDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-floor-'));
  try {
    buildSandbox();
    // The demo data alone: a start that does not depend on how much the rounds below write.
    await (await spawnSandbox({ dataDir })).stop();
    const demoStartup = await startupMs(dataDir);
    const pglite = await writesOn({ dataDir }, { dataDir: floorDir });
    const server = await spawnSandbox({ dataDir });
    let read: Load;
    let readBesideIdle: Load;
    try {
      read = await reads(server, 'reads: products, order book, loan book');
      readBesideIdle = await readsBesideIdle(server);
    } finally {
      await server.stop();
    }
    const startup = await startupMs(dataDir);
    // History on the demo data alone, apart from the rounds' open orders and positions, which
    // a start reads and the row above measures: what the history itself costs a start.
    await (await spawnSandbox({ dataDir: historyDir })).stop();
    const history = await historyStartup(historyDir);
    await (await spawnSandbox({ dataDir: busyDir })).stop();
    const busy = await busyDayStartup(busyDir);
    const deep = await deepBookTaken(deepDir);
    const marked = await markMovedFills(marksDir);
    const prism = await prismReads().catch((error: Error) => ({
      name: `Prism mock: ${error.message}`,
      perSecond: Number.NaN,
      p99Ms: Number.NaN,
      failed: 0,
    }));
    const postgres = await postgresStore();
    const onPostgres = postgres
      ? await writesOn(postgres, (await postgresStore()) as Store)
      : undefined;
    return [
      '## Sandbox',
      '',
      `autocannon, ${connections} connections, ${seconds} s per round, against the built \`exchange-sandbox\` in its own process. Write rows and ceilings: median of ${writeRounds} rounds on one server and store, lowest-highest in brackets.`,
      '',
      ...loadTableHead,
      tableRow({ ...pglite.writes, name: `PGlite: ${pglite.writes.name}` }),
      tableRow({ ...pglite.elsewhere, name: `PGlite: ${pglite.elsewhere.name}` }),
      tableRow({ ...pglite.watched, name: `PGlite: ${pglite.watched.name}` }),
      tableRow({ ...pglite.ceiling, name: `PGlite: ${pglite.ceiling.name}` }),
      tableRow({ ...pglite.intents, name: `PGlite: ${pglite.intents.name}` }),
      tableRow({ ...pglite.matching, name: `PGlite: ${pglite.matching.name}` }),
      tableRow({ ...pglite.floor, name: `PGlite: ${pglite.floor.name}` }),
      tableRow(read),
      tableRow(readBesideIdle),
      tableRow(prism),
      ...(onPostgres
        ? [
            tableRow({ ...onPostgres.writes, name: `PostgreSQL: ${onPostgres.writes.name}` }),
            tableRow({
              ...onPostgres.elsewhere,
              name: `PostgreSQL: ${onPostgres.elsewhere.name}`,
            }),
            tableRow({ ...onPostgres.watched, name: `PostgreSQL: ${onPostgres.watched.name}` }),
            tableRow({ ...onPostgres.ceiling, name: `PostgreSQL: ${onPostgres.ceiling.name}` }),
            tableRow({ ...onPostgres.intents, name: `PostgreSQL: ${onPostgres.intents.name}` }),
            tableRow({
              ...onPostgres.matching,
              name: `PostgreSQL: ${onPostgres.matching.name}`,
            }),
            tableRow({ ...onPostgres.floor, name: `PostgreSQL: ${onPostgres.floor.name}` }),
          ]
        : []),
      '',
      `With ${watchers.toLocaleString('en')} subscribers connected to another product's channels the write mix runs at ${share(pglite.elsewhere, pglite.writes)} of its rate without them on PGlite${onPostgres ? ` and ${share(onPostgres.elsewhere, onPostgres.writes)} on PostgreSQL` : ''}. With ${watchers.toLocaleString('en')} subscribers of the channels it changes, every write is two events to each of them (its side of the book and the product): the subscribers received ${Math.round(pglite.deliveries).toLocaleString('en')} events/s on PGlite${onPostgres ? ` and ${Math.round(onPostgres.deliveries).toLocaleString('en')} on PostgreSQL` : ''}, to compare with the fan-out floor of the Events table, and the writes wait on that. A margin order that fills at once runs at ${share(pglite.matching, pglite.writes)} of the write mix's rate on PGlite${onPostgres ? ` and ${share(onPostgres.matching, onPostgres.writes)} on PostgreSQL` : ''}; its floor, the same fills ${connections} at a time decided and stored in the bench's own process on a store of their own with no HTTP, at ${share(pglite.floor, pglite.writes)}${onPostgres ? ` and ${share(onPostgres.floor, onPostgres.writes)}` : ''}. Writes reach ${share(pglite.writes, pglite.ceiling)} of the store's own ceiling on PGlite${onPostgres ? ` and ${share(onPostgres.writes, onPostgres.ceiling)} on PostgreSQL` : ' (PostgreSQL rows appear when the bench runs beside one: `pnpm bench` starts a throwaway cluster)'}. Start-up of the built \`exchange-sandbox\` to \`ready\` on an existing PGlite data folder (median of 5): ${Math.round(demoStartup)} ms holding the demo data, ${Math.round(startup)} ms holding what the PGlite rounds above wrote as well (about ${Math.round((pglite.intents.perSecond * seconds * writeRounds) / 1000)}k intents, which a start leaves in the store until a call names one, and the open orders of the write mix and the open positions of the margin fills, with their loans, which it reads). ${historySentence(history)} On the demo data and ${(busyFills / 1e6).toLocaleString('en')} million fills of its last ${Math.round(busyFills / 60_000)} minutes (one a millisecond), all in the day the market figures are made of (median of 3): ${(busy.ms / 1000).toFixed(1)} s to \`ready\`, ${Math.round(busy.peakMb)} MB resident at most. ${deepBookSentence(deep)} ${markMovedSentence(marked)}`,
      '',
      'Targets: with PGlite at least 1,000 writes/s and 60% of the ceiling with p99 at most 20 ms, and within 5% of that with 1,000 subscribers connected elsewhere; a margin order that fills at once at least 70% of the write mix; with PostgreSQL at least 3,000 writes/s; at least 10,000 reads/s; start-up at most 1.5 s, on the long history and on the busy day at most 1.5 s and 300 MB, the long history pages p99 at most 10 ms.',
    ].join('\n');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await rm(historyDir, { recursive: true, force: true });
    await rm(busyDir, { recursive: true, force: true });
    await rm(deepDir, { recursive: true, force: true });
    await rm(marksDir, { recursive: true, force: true });
    await rm(floorDir, { recursive: true, force: true });
  }
}
