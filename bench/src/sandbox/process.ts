// The built `exchange-sandbox` in a process of its own, as users start it, and the stores it
// runs on.

import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  addDemoToken,
  freshPostgresDatabase,
  type RunningSandbox,
  startSandbox,
} from '@exchange-kit/sandbox/bench';
import { spawnSandbox as spawnSandboxProcess } from '@exchange-kit/sandbox/testing';
import type { Token } from './load.js';

const sandboxDir = fileURLToPath(
  new URL('.', import.meta.resolve('@exchange-kit/sandbox/package.json')),
);

/** Where a sandbox keeps its data: a PGlite folder or a PostgreSQL database. */
export type Store = { dataDir: string } | { databaseUrl: string };

const storeArgs = (store: Store) =>
  'dataDir' in store ? ['--data-dir', store.dataDir] : ['--database-url', store.databaseUrl];

/** The built `exchange-sandbox` in a process of its own, as users start it. */
export const spawnSandbox = (store: Store, timeoutMs = 60_000) =>
  spawnSandboxProcess({ built: true, args: storeArgs(store), timeoutMs });

export const buildSandbox = () =>
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: sandboxDir, stdio: 'inherit' });

/** Median of five starts of the built `exchange-sandbox` on a data folder that holds a store. */
export async function startupMs(dataDir: string): Promise<number> {
  const times: number[] = [];
  for (let n = 0; n < 5; n++) {
    const started = performance.now();
    const sandbox = await spawnSandbox({ dataDir });
    times.push(performance.now() - started);
    await sandbox.stop();
  }
  return times.sort((a, b) => a - b)[2] as number;
}

/** A start of the built `exchange-sandbox`: how long until `ready`, and its peak resident memory. */
export async function measuredStart(dataDir: string) {
  const started = performance.now();
  const sandbox = await spawnSandbox({ dataDir }, 180_000);
  const ms = performance.now() - started;
  const status = await readFile(`/proc/${sandbox.pid}/status`, 'utf8').catch(() => '');
  const peakKb = Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN);
  return { sandbox, ms, peakMb: peakKb / 1024 };
}

export const medianStart = (starts: { ms: number; peakMb: number }[]) =>
  starts.sort((a, b) => a.ms - b.ms)[Math.floor(starts.length / 2)] as {
    ms: number;
    peakMb: number;
  };

/**
 * Writes what `add` adds to the store under `dataDir` with a sandbox in this process, then
 * starts the built one on it: the demo user's token for it, and the server, to stop.
 */
export async function builtOn(dataDir: string, add: (fixtures: RunningSandbox) => Promise<void>) {
  const fixtures = await startSandbox({ port: 0, dataDir });
  let token: Token;
  try {
    token = await addDemoToken(fixtures);
    await add(fixtures);
  } finally {
    await fixtures.close();
  }
  return { token, server: await spawnSandbox({ dataDir }, 180_000) };
}

/** A fresh database on the PostgreSQL the bench runs beside, if it runs beside one. */
export async function postgresStore(): Promise<Store | undefined> {
  const serverUrl = process.env.SANDBOX_TEST_DATABASE_URL;
  if (!serverUrl) return undefined;
  return { databaseUrl: await freshPostgresDatabase(serverUrl) };
}
