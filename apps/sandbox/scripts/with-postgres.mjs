// Runs a command against a throwaway PostgreSQL on 127.0.0.1, so the sandbox's tests run on
// a real server as well as on PGlite: installs Debian's postgresql when it is missing, starts
// a fresh cluster in a temporary folder, passes its URL as SANDBOX_TEST_DATABASE_URL, and
// removes the cluster afterwards. A URL already in SANDBOX_TEST_DATABASE_URL is used as is.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: with-postgres.mjs COMMAND [ARGS...]');
  process.exit(2);
}

function binaries() {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions
    .map((version) => join(root, version, 'bin'))
    .find((bin) => existsSync(join(bin, 'initdb')));
  return found;
}

function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function asPostgres(file, fileArgs) {
  // The server refuses to run as root; the postgresql package creates this user.
  const runAs =
    process.getuid?.() === 0
      ? ['runuser', ['-u', 'postgres', '--', file, ...fileArgs]]
      : [file, fileArgs];
  execFileSync(runAs[0], runAs[1], { stdio: ['ignore', 'ignore', 'inherit'] });
}

function run() {
  const result = spawnSync(command, args, { stdio: 'inherit', env: process.env });
  return result.status ?? 1;
}

if (process.env.SANDBOX_TEST_DATABASE_URL) process.exit(run());

let bin = binaries();
if (!bin) {
  if (process.getuid?.() !== 0) {
    console.error(
      'PostgreSQL is not installed: run `apt-get install -y postgresql` (or set SANDBOX_TEST_DATABASE_URL).',
    );
    process.exit(2);
  }
  console.info("PostgreSQL is missing: installing Debian's postgresql");
  execFileSync(
    'sh',
    ['-c', 'apt-get update && apt-get install -y --no-install-recommends postgresql'],
    { stdio: 'inherit' },
  );
  bin = binaries();
}

const dir = mkdtempSync(join(tmpdir(), 'sandbox-postgres-'));
chmodSync(dir, 0o700);
if (process.getuid?.() === 0) {
  const postgresUid = Number(execFileSync('id', ['-u', 'postgres']).toString());
  const postgresGid = Number(execFileSync('id', ['-g', 'postgres']).toString());
  chownSync(dir, postgresUid, postgresGid);
}
const data = join(dir, 'data');
const port = await freePort();
let status = 1;
try {
  asPostgres(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync']);
  asPostgres(join(bin, 'pg_ctl'), [
    '-D',
    data,
    '-l',
    join(dir, 'log'),
    '-w',
    '-o',
    `-h 127.0.0.1 -p ${port} -k ${dir} -c fsync=off`,
    'start',
  ]);
  process.env.SANDBOX_TEST_DATABASE_URL = `postgres://postgres@127.0.0.1:${port}/postgres`;
  console.info(`PostgreSQL on 127.0.0.1:${port} for this run`);
  status = run();
} finally {
  try {
    asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
  } catch {
    // Never started: nothing to stop.
  }
  rmSync(dir, { recursive: true, force: true });
}
process.exit(status);
