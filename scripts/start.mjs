// `pnpm start`: the sandbox and the docs site side by side, and one block naming every URL
// and the demo credentials once both answer. The docs are rebuilt only when what they are built
// from changed (apps/docs/scripts/site-build.mjs), so a later start takes seconds.
//
// SANDBOX_PORT and DOCS_PORT choose the ports (4000, 4173); SANDBOX_DATA_DIR the sandbox's
// store (apps/sandbox/.sandbox-data). Ctrl-C stops both.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ensureSiteBuilt } from '../apps/docs/scripts/site-build.mjs';
import { graceMs, signalGroup } from './process-groups.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const host = '127.0.0.1';
const sandboxPort = Number(process.env.SANDBOX_PORT || 4000);
const docsPort = Number(process.env.DOCS_PORT || 4173);
const dataDir = process.env.SANDBOX_DATA_DIR || `${root}apps/sandbox/.sandbox-data`;
const started = Date.now();

/** Every process started here; each in a process group of its own (see stop). */
const children = new Set();
let stopping = false;

function fail(message, output = '') {
  if (stopping) return;
  if (output.trim()) process.stderr.write(`${output.trim()}\n`);
  console.error(`pnpm start: ${message}`);
  stop(1);
}

/**
 * Ends every child and then this process. The children run detached, so a Ctrl-C in the
 * terminal reaches only this process: each child is told once, and the exit says what
 * happened instead of three processes dying on the same signal at once.
 */
function stop(code) {
  if (stopping) return;
  stopping = true;
  const running = [...children].filter((child) => child.exitCode === null && !child.signalCode);
  if (running.length === 0) process.exit(code);
  let left = running.length;
  const killer = setTimeout(() => {
    for (const child of running) signalGroup(child.pid, 'SIGKILL');
  }, graceMs);
  for (const child of running) {
    child.once('exit', () => {
      left -= 1;
      if (left === 0) {
        clearTimeout(killer);
        process.exit(code);
      }
    });
    signalGroup(child.pid, 'SIGTERM');
  }
}

/** A child `stop` and the guard both end, until it has exited. */
function track(child) {
  children.add(child);
  guard.stdin.write(`+${child.pid}\n`);
  child.once('exit', () => {
    children.delete(child);
    guard.stdin.write(`-${child.pid}\n`);
  });
}

// Should this process end any other way, its detached servers must not outlive it.
process.on('exit', () => {
  for (const child of children) signalGroup(child.pid, 'SIGTERM');
});

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (!stopping) console.log('\nstopping the sandbox and the docs');
    stop(0);
  });
}

/** Says what holds a port instead of the EADDRINUSE trace a server's listen would throw. */
function portFree(port, what, variable) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error) => {
      const reason =
        error.code === 'EADDRINUSE'
          ? `${host}:${port} (${what}) is in use, by another \`pnpm start\` or another program: stop it, or choose another port with ${variable}=...`
          : `${host}:${port} (${what}) cannot be used: ${error.message}`;
      resolve(reason);
    });
    probe.listen(port, host, () => probe.close(() => resolve(undefined)));
  });
}

function launch(name, command, args, cwd, onLine) {
  const child = spawn(command, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: process.env,
  });
  track(child);
  let output = '';
  createInterface({ input: child.stdout }).on('line', (line) => {
    output += `${line}\n`;
    onLine(line);
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  child.on('exit', (code, signal) => {
    if (!stopping) fail(`${name} stopped (${signal ?? `exit ${code}`})`, output);
  });
  return child;
}

async function answers(url) {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const response = await fetch(url).catch(() => undefined);
    if (response?.ok) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

const busy = (
  await Promise.all([
    portFree(sandboxPort, 'the sandbox', 'SANDBOX_PORT'),
    portFree(docsPort, 'the docs', 'DOCS_PORT'),
  ])
).filter(Boolean);
if (busy.length > 0) {
  console.error(`pnpm start: ${busy[0]}`);
  process.exit(1);
}

// The children run detached, so a SIGKILL of this process, or of its group, reaches none of
// them and no handler here runs: without the guard they would keep both ports. The guard is
// detached too, so that kill does not reach it either. Unreferenced, it never keeps this
// process alive.
const guard = spawn(process.execPath, [`${root}scripts/start-guard.mjs`], {
  stdio: ['pipe', 'ignore', 'ignore'],
  detached: true,
});
guard.unref();
guard.stdin.unref();
// A guard gone first only costs that protection, not the start.
guard.stdin.on('error', () => {});

const sandboxUrl = `http://${host}:${sandboxPort}`;
const docsUrl = `http://${host}:${docsPort}/`;

/** The sandbox's own banner: its URLs, its store and the demo credentials as it shows them. */
const sandboxBanner = [];
const sandboxReady = new Promise((resolve) => {
  const build = spawn(process.execPath, ['scripts/build.mjs'], {
    cwd: `${root}apps/sandbox`,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  track(build);
  let output = '';
  build.stdout.on('data', (chunk) => {
    output += chunk;
  });
  build.stderr.on('data', (chunk) => {
    output += chunk;
  });
  build.on('exit', (code) => {
    if (stopping) return;
    if (code !== 0) return fail('the sandbox did not build', output);
    launch(
      'the sandbox',
      process.execPath,
      [
        'dist/main.js',
        '--port',
        String(sandboxPort),
        '--host',
        host,
        '--data-dir',
        dataDir,
        '--docs-url',
        docsUrl,
        // The console's buttons settle transactions, credit deposits and move prices.
        '--test-control',
      ],
      `${root}apps/sandbox`,
      (line) => {
        if (line === 'ready') resolve();
        else sandboxBanner.push(line);
      },
    );
  });
});

let docsNote = '';
const docsReady = (async () => {
  const building = Date.now();
  const built = await ensureSiteBuilt({
    detached: true,
    onChild: track,
  }).catch((error) => {
    fail('the docs site did not build', stopping ? '' : (error.output ?? error.message));
    return new Promise(() => {});
  });
  docsNote = built
    ? `built in ${((Date.now() - building) / 1000).toFixed(1)} s: its sources changed`
    : 'up to date with its sources';
  await new Promise((resolve) => {
    launch(
      'the docs server',
      `${root}apps/docs/node_modules/.bin/tsx`,
      ['scripts/serve.ts', '--port', String(docsPort), '--host', host, '--sandbox-url', sandboxUrl],
      `${root}apps/docs`,
      (line) => {
        if (line.startsWith('docs:')) resolve();
      },
    );
  });
})();

console.log(
  `starting the sandbox (${sandboxUrl}) and the docs (${docsUrl}); the docs build when their sources changed`,
);
await Promise.all([sandboxReady, docsReady]);
if (!(await answers(`${sandboxUrl}/health`)) || !(await answers(docsUrl))) {
  fail('the sandbox or the docs did not answer');
} else if (!stopping) {
  const rule = '-'.repeat(72);
  console.log(
    [
      rule,
      `exchange-kit is running (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
      '',
      `docs:          ${docsUrl}  (${docsNote})`,
      `live buy flow: ${docsUrl}live.html`,
      `sandbox:       ${sandboxUrl}/`,
      `health:        ${sandboxUrl}/health`,
      ...sandboxBanner,
      '',
      'Ctrl-C stops both.',
      rule,
    ].join('\n'),
  );
}
