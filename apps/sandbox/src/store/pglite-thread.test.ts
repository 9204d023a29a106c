import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { dropSpare, PgliteThread, prestart } from './pglite-thread.js';

describe('PGlite on a thread of its own', () => {
  const opened: PgliteThread[] = [];
  const open = async (dataDir?: string) => {
    const thread = await PgliteThread.open(dataDir);
    opened.push(thread);
    return thread;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((thread) => thread.close().catch(() => undefined)));
  });

  it('leaves the thread that serves calls free while a statement runs', async () => {
    const store = await open();
    const started = performance.now();
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(performance.now() - started), 10);
    try {
      await store.query('SELECT count(*) FROM generate_series(1, 3000000)');
    } finally {
      clearInterval(timer);
    }
    const took = performance.now() - started;
    // On the same thread, no timer would fire until the statement ended.
    expect(took).toBeGreaterThan(100);
    expect(ticks.length).toBeGreaterThan(3);
    expect(ticks[0]).toBeLessThan(took / 2);
  });

  it("answers a refused statement with Postgres' error, and goes on answering", async () => {
    const store = await open();
    const refused = await store.query('SELECT * FROM no_such_table').catch((error) => error);
    expect(refused).toBeInstanceOf(Error);
    expect(refused).toMatchObject({ code: '42P01', message: expect.stringContaining('no_such') });
    expect(await store.query<{ n: number }>('SELECT $1::int AS n', [7])).toEqual({
      rows: [{ n: 7 }],
    });
    expect(await store.copyOut("SELECT 1, E'a\\tb'")).toBe('1\ta\\tb\n');
  });

  it('opens on the thread started ahead of it, and on a new one after', async () => {
    prestart();
    const first = await open();
    const second = await open();
    expect(await first.query('SELECT 1 AS n')).toEqual({ rows: [{ n: 1 }] });
    expect(await second.query('SELECT 2 AS n')).toEqual({ rows: [{ n: 2 }] });
    prestart();
    dropSpare();
  });

  it('refuses every request once closed, naming why', async () => {
    const store = await PgliteThread.open();
    await store.close();
    await expect(store.query('SELECT 1')).rejects.toThrow('The store has closed');
  });
});

describe('a store on that thread', () => {
  let dataDir: string | undefined;
  afterEach(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('rolls a failed unit of work back whole, keeps what committed, and reopens with it', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pglite-thread-'));
    const store = await openDatabase({ dataDir });
    await store.transaction(async (tx) => {
      await tx.query('CREATE TABLE kept (n int)');
      await tx.query('INSERT INTO kept VALUES (1)');
    });
    const failed = store.transaction(async (tx) => {
      await tx.query('INSERT INTO kept VALUES (2)');
      throw new Error('the work failed');
    });
    await expect(failed).rejects.toThrow('the work failed');
    await expect(
      store.transaction((tx) => tx.query('INSERT INTO kept VALUES (3), (1 / 0)')),
    ).rejects.toMatchObject({ code: '22012' });
    await store.apply('INSERT INTO kept VALUES (4); INSERT INTO kept VALUES (5)');
    await expect(store.apply('INSERT INTO kept VALUES (6); SELECT 1 / 0')).rejects.toThrow(
      'division by zero',
    );
    await store.close();

    const again = await openDatabase({ dataDir });
    try {
      const { rows } = await again.read((tx) => tx.query('SELECT n FROM kept ORDER BY n'));
      expect(rows).toEqual([{ n: 1 }, { n: 4 }, { n: 5 }]);
    } finally {
      await again.close();
    }
  });
});

describe('the process a store runs in', () => {
  const exits = async (script: string) => {
    const folder = await mkdtemp(join(tmpdir(), 'pglite-thread-script-'));
    const file = join(folder, 'script.mts');
    await writeFile(file, script);
    return new Promise<{ code: number | null; ms: number }>((resolve, reject) => {
      const started = performance.now();
      const child = spawn(process.execPath, ['--import', 'tsx', file], {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('error', reject);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, ms: performance.now() - started });
      });
    }).finally(() => rm(folder, { recursive: true, force: true }));
  };
  const thread = JSON.stringify(new URL('./pglite-thread.ts', import.meta.url).href);

  it('runs until its last request is answered, and ends on its own once the store is idle', async () => {
    const script = `
      import { PgliteThread } from ${thread};
      const store = await PgliteThread.open();
      await store.exec('CREATE TABLE t (n int)');
      // Nothing else keeps the process running: only the request on its way.
      store.query('SELECT count(*)::int AS n FROM generate_series(1, 200000)').then(({ rows }) => {
        if (rows[0].n !== 200000) process.exit(3);
        process.exitCode = 7;
      });`;
    // 7: the answer arrived; the store left open then kept the process from nothing.
    expect(await exits(script)).toMatchObject({ code: 7 });
  });
});
