import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zCreateOrderResponse } from '@exchange-kit/contract/exchange/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultCredentials } from '../config.js';
import { startSandbox } from '../server.js';
import { demoClient, valid } from '../test-support.js';
import { openDatabase } from './database.js';
import { migrateAsFormerRunner } from './legacy-store.test-support.js';
import { seed } from './seed.js';

const directories: string[] = [];
afterEach(async () => {
  for (const directory of directories.splice(0)) {
    await rm(directory, { recursive: true, force: true });
  }
});

/** The migrations the former runner applied; the rest came with postgrator. */
const formerCount = 4;

/**
 * Each table and column the migrations after the former runner's add, as the statement that
 * adds it and the one that takes it back.
 */
function addedByLaterMigrations(): { create: string; drop: string }[] {
  const directory = new URL('./migrations/', import.meta.url);
  const files = readdirSync(directory)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .slice(formerCount);
  return files.flatMap((file) =>
    readFileSync(new URL(file, directory), 'utf8')
      .replace(/--.*$/gm, '')
      .split(';')
      .map((statement) => statement.trim())
      .flatMap((statement) => {
        const table = /^CREATE TABLE (\w+)/i.exec(statement)?.[1];
        if (table) return [{ create: statement, drop: `DROP TABLE ${table}` }];
        const column = /^ALTER TABLE (\w+) ADD COLUMN (\w+)/i.exec(statement);
        if (column) {
          return [{ create: statement, drop: `ALTER TABLE ${column[1]} DROP COLUMN ${column[2]}` }];
        }
        return [];
      }),
  );
}

async function dataDir(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'sandbox-data-dir-'));
  directories.push(directory);
  return directory;
}

describe('a PGlite data folder', () => {
  it('serves one sandbox at a time', async () => {
    const dir = await dataDir();
    const first = await startSandbox({ port: 0, dataDir: dir });
    try {
      await expect(startSandbox({ port: 0, dataDir: dir })).rejects.toThrow(
        `Another sandbox (process ${process.pid}) is using the data folder ${dir}`,
      );
    } finally {
      await first.close();
    }
    const next = await startSandbox({ port: 0, dataDir: dir });
    await next.close();
  });

  it('is given back when the sandbox cannot listen', async () => {
    const dir = await dataDir();
    const holder = await startSandbox({ port: 0, memory: true });
    try {
      const port = Number(new URL(holder.exchangeUrl).port);
      await expect(startSandbox({ port, dataDir: dir })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await holder.close();
    }
    const sandbox = await startSandbox({ port: 0, dataDir: dir });
    await sandbox.close();
  });

  it('is given back when the state it holds cannot be read', async () => {
    const dir = await dataDir();
    await (await startSandbox({ port: 0, dataDir: dir })).close();
    const rename = async (from: string, to: string) => {
      const db = await openDatabase({ dataDir: dir });
      await db.transaction((tx) => tx.query(`ALTER TABLE ${from} RENAME TO ${to}`));
      await db.close();
    };
    // The routes are built while the state is read: the failed read closes them and the store.
    await rename('products', 'products_away');
    await expect(startSandbox({ port: 0, dataDir: dir })).rejects.toThrow(/products/);
    await rename('products_away', 'products');
    const sandbox = await startSandbox({ port: 0, dataDir: dir });
    try {
      expect(sandbox.sequencer.state.exchange.products.size).toBeGreaterThan(0);
    } finally {
      await sandbox.close();
    }
  });

  it('is taken over from a sandbox that was killed', async () => {
    const dir = await dataDir();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    await writeFile(join(dir, 'sandbox.pid'), gone.stdout.toString());
    const sandbox = await startSandbox({ port: 0, dataDir: dir });
    try {
      expect(await readFile(join(dir, 'sandbox.pid'), 'utf8')).toBe(String(process.pid));
    } finally {
      await sandbox.close();
    }
  });

  it('is taken over from a sandbox killed a moment ago, whose parent has not reaped it', async () => {
    const dir = await dataDir();
    // A process whose parent never reads its status once it ends: `sleep 30`, exec'd into
    // by the shell that started it in the background.
    const { spawn } = await import('node:child_process');
    const parent = spawn('sh', ['-c', 'sleep 30 & echo $!; exec sleep 30'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const pid = Number(
        await new Promise<string>((resolve) =>
          parent.stdout.once('data', (d) => resolve(String(d))),
        ),
      );
      // Killed while the shell still runs, it would be reaped by the shell.
      await expect
        .poll(() => readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim())
        .toBe('sleep');
      process.kill(pid, 'SIGKILL');
      await expect
        .poll(() => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0])
        .toBe('Z');
      await writeFile(join(dir, 'sandbox.pid'), String(pid));
      const sandbox = await startSandbox({ port: 0, dataDir: dir });
      await sandbox.close();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('opens a folder migrated by the former runner, with its data', async () => {
    const dir = await dataDir();
    const former = await openDatabase({ dataDir: dir });
    let orders: number;
    try {
      await migrateAsFormerRunner(former, formerCount);
      // The seed is today's code, which reads and writes the tables and columns later
      // migrations add: they are there while the seed runs, and gone again, as in a folder
      // the former runner left.
      const added = addedByLaterMigrations();
      for (const statement of added) await former.apply(statement.create);
      const sequencer = await seed(former, defaultCredentials, Date.now());
      await sequencer.settled();
      orders = sequencer.state.exchange.orders.size;
      for (const statement of [...added].reverse()) await former.apply(statement.drop);
    } finally {
      await former.close();
    }
    expect(orders).toBeGreaterThan(0);
    const sandbox = await startSandbox({ port: 0, dataDir: dir });
    try {
      expect(sandbox.sequencer.state.exchange.orders.size).toBe(orders);
      const order = {
        order_type: 'limit',
        product_id: 1,
        side: 'buy',
        quantity: '0.01',
        price: '9000000',
      };
      valid(zCreateOrderResponse, await demoClient(sandbox)('POST', '/orders', { body: order }));
    } finally {
      await sandbox.close();
    }
  });
});
