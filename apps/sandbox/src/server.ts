import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DemoCredentials, defaultCredentials } from './config.js';
import { marketHandlers } from './exchange/market.js';
import { oauthHandlers } from './exchange/oauth.js';
import { orderHandlers } from './exchange/orders.js';
import { userHandlers } from './exchange/users.js';
import { createApp } from './http/app.js';
import { buildRoutes } from './http/router.js';
import type { Handlers } from './http/types.js';
import { findSessionSecret, partnerHandlers } from './partner/handlers.js';
import { type Database, openDatabase, type StoreOptions } from './store/database.js';
import { migrate } from './store/migrations.js';
import { seed } from './store/seed.js';

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
  /** Current time in ms; injectable so tests can move the clock (OAuth expiry). */
  now?: () => number;
}

export interface RunningSandbox {
  server: Server;
  /** Base URL of the exchange interface (paths at the root). */
  exchangeUrl: string;
  /** Base URL of the partner interface; partner paths add /api/v1 to it. */
  partnerUrl: string;
  credentials: DemoCredentials;
  /** The store, for fixtures and checks in tests. */
  database: Database;
  close(): Promise<void>;
}

/** Every operation's handler; `exchangeUrl` is what the OAuth challenge hrefs point at. */
export function sandboxHandlers(exchangeUrl: string): Handlers {
  return {
    ...marketHandlers,
    ...orderHandlers,
    ...userHandlers,
    ...oauthHandlers(exchangeUrl),
    ...partnerHandlers,
  };
}

function storeOptions(options: SandboxOptions): StoreOptions {
  if (options.databaseUrl) return { databaseUrl: options.databaseUrl };
  if (options.memory) return { memory: true };
  return { dataDir: options.dataDir ?? '.sandbox-data' };
}

/** Opens and migrates the store, seeds it, and resolves once the server accepts connections. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const now = options.now ?? Date.now;
  const credentials = options.credentials ?? defaultCredentials;
  const database = await openDatabase(storeOptions(options));
  try {
    await migrate(database);
    await seed(database, credentials, now());
  } catch (error) {
    await database.close();
    throw error;
  }

  const server = createServer();
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4000, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  // The OAuth hrefs name the server's own URL, known once it listens; requests are
  // handled from here on.
  server.on(
    'request',
    createApp({
      db: database,
      routes: buildRoutes(),
      handlers: sandboxHandlers(origin),
      findSessionSecret,
      now,
    }),
  );

  return {
    server,
    exchangeUrl: origin,
    partnerUrl: origin,
    credentials,
    database,
    async close() {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      await database.close();
    },
  };
}
