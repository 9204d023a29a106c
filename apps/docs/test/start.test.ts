/**
 * `pnpm start` as a person runs it from the repository root: the ready block, every URL in it
 * answering, a second start refused in one line, and Ctrl-C ending everything quietly; killed
 * outright, it still leaves no server holding a port.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repoDir = fileURLToPath(new URL('../../../', import.meta.url));
const rule = '-'.repeat(72);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

// pnpm itself, not npm's `npx` wrapper around it, which dies of the terminal's signal by design.
// npx gets no npm_config_* of the `pnpm test` running us: they hold pnpm's own settings, which
// npm does not know and warns about, one line each.
const pnpm = execFileSync('npx', ['-y', '-p', 'pnpm@10.34.9', 'which', 'pnpm'], {
  encoding: 'utf8',
  env: Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_config_/i.test(key)),
  ),
}).trim();

/** `pnpm start` in a process group of its own, as a terminal runs a foreground command. */
function pnpmStart(env: Record<string, string>): Run {
  const child = spawn(pnpm, ['start'], {
    cwd: repoDir,
    env: { ...process.env, ...env, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitFor(run: Run, test: (output: string) => boolean, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!test(run.output())) {
    if (Date.now() > deadline || run.child.exitCode !== null) {
      throw new Error(`no ${what} in ${ms} ms; output:\n${run.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Can the port be listened on again, as the next `pnpm start` will? */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** The process groups of every process whose command line holds one of `marks`, as words. */
function groupsOf(marks: string[]): number[] {
  const table = execFileSync('ps', ['-A', '-o', 'pgid=,args='], { encoding: 'utf8' });
  const groups = table
    .split('\n')
    .filter((line) => marks.some((mark) => `${line} `.includes(` ${mark} `)))
    .map((line) => Number.parseInt(line, 10));
  return [...new Set(groups)];
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

const runs: Run[] = [];
const dataDirs: string[] = [];
/** Server groups a failing test may have left running, ended for good after it. */
const strays: number[] = [];
afterAll(async () => {
  for (const pgid of strays) {
    if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
  }
  // As Ctrl-C would: the start script stops the servers it started, which run apart from it.
  for (const run of runs) {
    const running = run.child.exitCode === null && run.child.signalCode === null;
    if (running && run.child.pid) process.kill(-run.child.pid, 'SIGINT');
  }
  await Promise.all(runs.map((run) => within(run.exited, 20_000, 'stopping').catch(() => {})));
  for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
});

describe('pnpm start', () => {
  it('prints one ready block whose URLs answer, refuses a second start in one line, and stops on Ctrl-C', async () => {
    const [sandboxPort, docsPort] = [await freePort(), await freePort()];
    const dataDir = await mkdtemp(join(tmpdir(), 'start-test-'));
    dataDirs.push(dataDir);
    const env = {
      SANDBOX_PORT: String(sandboxPort),
      DOCS_PORT: String(docsPort),
      SANDBOX_DATA_DIR: dataDir,
    };
    const first = pnpmStart(env);
    runs.push(first);
    await waitFor(first, (out) => out.split(rule).length === 3, 90_000, 'ready block');

    const block = first.output().split(rule)[1] ?? '';
    expect(block).toContain('SANDBOX_TOKEN_ID=');
    expect(block).toContain('SANDBOX_TOKEN_SECRET=');
    expect(block).toContain('SANDBOX_PUBLIC_API_KEY=');
    expect(block).toContain('SANDBOX_SECOND_TOKEN_ID=');
    expect(block).toContain('SANDBOX_SECOND_TOKEN_SECRET=');
    const urls = [...block.matchAll(/https?:\/\/[^\s,)]+/g)].map((match) => match[0]);
    expect(urls).toContain(`http://127.0.0.1:${docsPort}/`);
    expect(urls).toContain(`http://127.0.0.1:${sandboxPort}/`);
    for (const url of urls) {
      const answer = await fetch(url);
      expect(answer.status, url).toBe(200);
    }

    const second = pnpmStart(env);
    runs.push(second);
    const refused = await within(second.exited, 30_000, 'the second start');
    expect(refused.code).not.toBe(0);
    const ours = second
      .output()
      .split('\n')
      .filter((line) => line.startsWith('pnpm start:'));
    expect(ours).toEqual([
      `pnpm start: 127.0.0.1:${sandboxPort} (the sandbox) is in use, by another \`pnpm start\` or another program: stop it, or choose another port with SANDBOX_PORT=...`,
    ]);
    expect(second.output()).not.toMatch(/EADDRINUSE|\n\s+at /);
    // The first one is untouched by the second.
    expect((await fetch(`http://127.0.0.1:${sandboxPort}/health`)).status).toBe(200);

    process.kill(-(first.child.pid as number), 'SIGINT');
    const ended = await within(first.exited, 20_000, 'stopping on Ctrl-C');
    expect(ended).toEqual({ code: 0, signal: null });
    const after = first.output().split(rule)[2] ?? '';
    expect(after).not.toMatch(/Command failed|ELIFECYCLE|ERR_|Error/);
    for (const port of [sandboxPort, docsPort]) {
      await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
    }
  });

  it('leaves no server behind, and both ports free, when killed with SIGKILL', async () => {
    const [sandboxPort, docsPort] = [await freePort(), await freePort()];
    const dataDir = await mkdtemp(join(tmpdir(), 'start-test-'));
    dataDirs.push(dataDir);
    const run = pnpmStart({
      SANDBOX_PORT: String(sandboxPort),
      DOCS_PORT: String(docsPort),
      SANDBOX_DATA_DIR: dataDir,
    });
    runs.push(run);
    await waitFor(run, (out) => out.split(rule).length === 3, 90_000, 'ready block');
    // The sandbox is the one process given this data directory, the docs server (tsx and the
    // node it runs) the ones given this port.
    const servers = groupsOf([dataDir, `--port ${docsPort}`]);
    strays.push(...servers);
    expect(servers.length).toBeGreaterThanOrEqual(2);

    // As `kill -9` of the terminal's job: pnpm and the start script die without a word.
    process.kill(-(run.child.pid as number), 'SIGKILL');
    await within(run.exited, 5_000, 'the SIGKILL');

    const deadline = Date.now() + 10_000;
    const left = async () => {
      const alive = servers.filter(groupAlive);
      const busy = [];
      for (const port of [sandboxPort, docsPort]) if (!(await bindable(port))) busy.push(port);
      return { alive, busy };
    };
    let state = await left();
    while ((state.alive.length > 0 || state.busy.length > 0) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      state = await left();
    }
    expect(state).toEqual({ alive: [], busy: [] });
  });
});
