import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DemoCredentials, defaultCredentials } from './config.js';
import { serveEvents } from './events/events-server.js';
import type { EventHub } from './events/hub.js';
import type { ConnectionTimes } from './events/pusher-connection.js';
import type { Handlers } from './handling/operation.js';
import { createApp } from './http/app.js';
import {
  boundConnections,
  type FittedConnectionBounds,
  fitConnectionBounds,
  readOpenFileLimit,
} from './http/connection-bounds.js';
import type { AnonymousRateLimits, RateLimit } from './http/rate-limit.js';
import { buildRoutes } from './http/router.js';
import { createLogger, type LogDestination } from './log.js';
import { sandboxPages } from './pages/pages.js';
import { findSessionSecret } from './partner/handlers.js';
import { sandboxHandlers, sandboxStoredReads } from './sandbox-handlers.js';
import type { Sequencer } from './state/sequencer.js';
import { type Database, openDatabase, type StoreOptions, whenOpen } from './store/database.js';
import { migrate } from './store/migrations.js';
import { writeDirectly } from './store/sandbox-storage.js';
import { seedAhead } from './store/seed.js';
import { clockOffsetOf, TestClock } from './test-control/test-clock.js';
import { testControl } from './test-control/test-control.js';

export interface SandboxOptions {
  port?: number;
  host?: string;
  /** PGlite under this folder (the default store, under `.sandbox-data`). */
  dataDir?: string;
  /** Keep nothing: an in-memory PGlite. */
  memory?: boolean;
  /** A real PostgreSQL instead of PGlite. */
  databaseUrl?: string;
  credentials?: DemoCredentials;
  /** Calls allowed per token, as the service limits them; unlimited when absent. */
  rateLimit?: RateLimit;
  /** Anonymous partner calls allowed per public key and per client address; unlimited when absent. */
  anonymousRateLimits?: AnonymousRateLimits;
  /** A PENDING transaction is FILLED this long after its settlements start; never when absent. */
  settleAfterMs?: number;
  /** Current time in ms; injectable so tests can move the clock (OAuth expiry). */
  now?: () => number;
  /** The docs site running beside the sandbox, linked from its index page. */
  docsUrl?: string;
  /**
   * Refuse the session operations (intent_to_trade, settlement, status) without a session
   * Bearer JWT, which the spec leaves optional; off by default.
   */
  requireSessionAuth?: boolean;
  /** Serve the test-control endpoints (`/test/...`): settle a transaction, move the clock. */
  testControl?: boolean;
  /** Where the JSON log lines go; standard error when absent. */
  logDestination?: LogDestination;
  /** Connections one client address may hold open; a newcomer beyond it is closed. Default 2,000. */
  maxConnectionsPerAddress?: number;
  /**
   * Connections held open in all; the ones idle the longest are closed to make room for a
   * newcomer. Default 10,000, lowered to leave a quarter of `ulimit -n` to the store.
   */
  maxConnections?: number;
  /** How long a connection may take to send its request headers; 10 s when absent. */
  headersTimeoutMs?: number;
  /** The websocket's activity timeout and pong wait; 120 s and 30 s when absent. */
  eventTimes?: ConnectionTimes;
}

export interface RunningSandbox {
  server: Server;
  /** Base URL of the exchange interface (paths at the root). */
  exchangeUrl: string;
  /** Base URL of the partner interface; partner paths add /api/v1 to it. */
  partnerUrl: string;
  credentials: DemoCredentials;
  /**
   * The store, for fixtures and checks in tests. A transaction run through it is read back
   * into the sandbox state in memory once it commits.
   */
  database: Database;
  /** The sandbox state in memory, for tools that drive it without HTTP (benchmarks). */
  sequencer: Sequencer;
  /** The connection bounds it runs with, as fitted under the open-file limit. */
  connectionBounds: FittedConnectionBounds;
  /** Who listens to the websocket channels, at `eventsPath` on the same port. */
  events: EventHub;
  close(): Promise<void>;
}

/** The store as tests and tools see it: what they write directly, the exchange reads back. */
function fixtureDatabase(database: Database, sequencer: Sequencer): Database {
  return {
    transaction: (work) => writeDirectly(database, sequencer, work),
    read: (work) => database.read(work),
    apply: (statements, prepared) => database.apply(statements, prepared),
    reclaim: database.reclaim?.bind(database),
    analyze: database.analyze?.bind(database),
    close: () => database.close(),
  };
}

type PathHandler = ReturnType<typeof testControl>;

/** How long closing waits for calls in flight before it cuts their connections. */
const closeGraceMs = 2000;

/** The pages, then the test-control endpoints when the sandbox serves them. */
function withTestControl(pages: PathHandler, control: PathHandler | undefined): PathHandler {
  if (!control) return pages;
  return async (request, pathname) =>
    (await pages(request, pathname)) ?? control(request, pathname);
}

function storeOptions(options: SandboxOptions): StoreOptions {
  if (options.databaseUrl) return { databaseUrl: options.databaseUrl };
  if (options.memory) return { memory: true };
  return { dataDir: options.dataDir ?? '.sandbox-data' };
}

/** Opens and migrates the store, seeds it, and resolves once the server accepts connections. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  // What test control moved the clock by is kept in the store: a restart, with test control
  // or without, goes on from where the clock stood. Read once the store's state is.
  let offset = () => 0;
  const wallClock = options.now ?? Date.now;
  const clock = new TestClock(wallClock, () => offset());
  const now = clock.now;
  const credentials = options.credentials ?? defaultCredentials;
  const opening = openDatabase(storeOptions(options));
  const database = whenOpen(opening);
  const { sequencer, seeded } = seedAhead(database, credentials, now(), migrate(database));
  offset = clockOffsetOf(sequencer);

  const log = createLogger(options.logDestination);
  // The OAuth hrefs name the server's own URL, known once it listens: the handlers are put
  // in place then, before any call is read.
  const handlers: Handlers = {};
  // Built while the store opens and its state is read in: the routes only hold on to the
  // sequencer, and a start waits on the store for most of its time.
  const built = createApp({
    sequencer,
    routes: buildRoutes(),
    handlers,
    storedReads: sandboxStoredReads,
    findSessionSecret,
    now,
    wallClock,
    rateLimit: options.rateLimit,
    pages: withTestControl(
      sandboxPages({
        sequencer,
        now,
        docsUrl: options.docsUrl,
        handlers,
        credentials,
        testControl: options.testControl === true,
      }),
      options.testControl ? testControl({ sequencer, clock }) : undefined,
    ),
    anonymousRateLimits: options.anonymousRateLimits,
    log,
  });
  const [read, made] = await Promise.allSettled([seeded, built]);
  if (read.status === 'rejected' || made.status === 'rejected') {
    if (made.status === 'fulfilled') await made.value.app.close();
    await sequencer.settled();
    // A store that could not open has nothing to give back.
    await opening.then(
      (db) => db.close(),
      () => undefined,
    );
    throw read.status === 'rejected' ? read.reason : (made as PromiseRejectedResult).reason;
  }
  const { app, drain } = made.value;
  const host = options.host ?? '127.0.0.1';
  const server = app.server;
  const connectionBounds = fitConnectionBounds(
    { perAddress: options.maxConnectionsPerAddress, total: options.maxConnections },
    readOpenFileLimit(),
  );
  boundConnections(server, connectionBounds, options.headersTimeoutMs);
  const events = serveEvents(server, sequencer, now, options.eventTimes);
  sequencer.publisher = events.publisher;
  try {
    await app.ready();
    // Listening on Fastify's server directly: the log keeps to calls, with no line of its own.
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // A client with a thousand calls in flight opens as many connections at once: Node's
      // default queue of 511 drops the rest, whose calls then stall a second or are reset.
      server.listen({ port: options.port ?? 4000, host, backlog: 4096 }, resolve);
    });
  } catch (error) {
    // The port is taken: give the store, and its data folder, back.
    await app.close();
    await sequencer.settled();
    await database.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  Object.assign(
    handlers,
    sandboxHandlers(origin, options.settleAfterMs, options.requireSessionAuth),
  );
  // A turn later, once the caller has heard the sandbox is ready: on a store written in bulk,
  // and never analysed, the planner's statistics take a while to gather.
  setImmediate(() => void sequencer.analyze().catch(() => undefined));

  return {
    server,
    exchangeUrl: origin,
    partnerUrl: origin,
    credentials,
    database: fixtureDatabase(database, sequencer),
    sequencer,
    connectionBounds,
    events: events.hub,
    async close() {
      // Calls in flight are answered first; a client that never finishes sending is cut off
      // after a grace period rather than holding the store open.
      const cutOff = setTimeout(() => server.closeAllConnections(), closeGraceMs);
      events.close();
      try {
        // The server is the edge's own (it answers kept reads before Fastify): closed here.
        await Promise.all([
          new Promise<void>((resolve) => server.close(() => resolve())),
          app.close(),
        ]);
        await drain();
      } finally {
        clearTimeout(cutOff);
      }
      await sequencer.settled();
      await database.close();
    },
  };
}
