/**
 * `@exchange-kit/sandbox/testing`: how other packages' tests, tools and benches start the
 * sandbox. It runs as its own process, exactly as a user starts it, and tells where it listens
 * and with which credentials over an IPC channel (the message `main.ts` sends once ready),
 * never through its console output.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ReadyMessage } from './ready.js';

export interface SandboxProcess {
  exchangeUrl: string;
  partnerUrl: string;
  tokenId: string;
  tokenSecret: string;
  publicApiKey: string;
  /**
   * The lines it printed before `ready` (its URLs, store and credentials), as a user reads
   * them; absent for a sandbox that was not started here.
   */
  banner?: string;
  /** Its process id, to measure what it holds; absent for a sandbox not started here. */
  pid?: number;
  stop(): Promise<void>;
}

// Found when a sandbox starts, not when the module loads: a test in jsdom, whose module URLs
// are not files, may import the clock helper.
const sandboxDir = () => fileURLToPath(new URL('../', import.meta.url));

/** A loopback port nothing listens on now: where a test starts a sandbox later on. */
export function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Moves the clock of a sandbox started with `--test-control` forward (`POST /test/clock`):
 * quotes, instructions and OAuth requests expire as if the time had passed.
 */
export async function advanceSandboxClock(
  sandbox: Pick<SandboxProcess, 'exchangeUrl'>,
  seconds: number,
): Promise<void> {
  await testControlPost(sandbox, '/test/clock', { advance_seconds: seconds });
}

/**
 * Denies a pending OAuth request of a sandbox started with `--test-control`, as its user would
 * at the approval page (`POST /test/oauth_requests/{public_id}/deny`).
 */
export async function denySandboxOAuthRequest(
  sandbox: Pick<SandboxProcess, 'exchangeUrl'>,
  publicId: string,
): Promise<void> {
  await testControlPost(sandbox, `/test/oauth_requests/${encodeURIComponent(publicId)}/deny`, {});
}

/**
 * Moves a withdrawal of a sandbox started with `--test-control` as the exchange would
 * (`POST /test/withdrawals/{withdrawal_id}/state`): `processing`, `processed` or `declined`,
 * where the withdrawal table allows it.
 */
export async function moveSandboxWithdrawal(
  sandbox: Pick<SandboxProcess, 'exchangeUrl'>,
  withdrawalId: number,
  state: 'processing' | 'processed' | 'declined',
): Promise<void> {
  await testControlPost(sandbox, `/test/withdrawals/${withdrawalId}/state`, { state });
}

/**
 * Credits a received deposit to a user of a sandbox started with `--test-control`
 * (`POST /test/deposits`); `amount` is a decimal string.
 */
export async function creditSandboxDeposit(
  sandbox: Pick<SandboxProcess, 'exchangeUrl'>,
  deposit: { userId: number; currency: string; amount: string },
): Promise<void> {
  const { userId, currency, amount } = deposit;
  await testControlPost(sandbox, '/test/deposits', { user_id: userId, currency, amount });
}

/**
 * Adds a user to a sandbox started with `--test-control` (`POST /test/users`), with the demo
 * users' starting balances: its id, and the id and secret of the API token that signs its calls.
 */
export async function addSandboxUser(
  sandbox: Pick<SandboxProcess, 'exchangeUrl'>,
  options: { firstName?: string } = {},
): Promise<{ userId: number; tokenId: string; tokenSecret: string }> {
  const body = options.firstName === undefined ? {} : { first_name: options.firstName };
  const added = (await testControlPost(sandbox, '/test/users', body)) as Record<string, unknown>;
  return {
    userId: Number(added.user_id),
    tokenId: String(added.token_id),
    tokenSecret: String(added.token_secret),
  };
}

/** A test-control call that must succeed: what it answered, parsed. */
async function testControlPost(
  sandbox: Pick<SandboxProcess, 'exchangeUrl'>,
  path: string,
  body: unknown,
): Promise<unknown> {
  const response = await fetch(`${sandbox.exchangeUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    throw new Error(`test control ${path}: ${response.status} ${await response.text()}`);
  }
  return response.json();
}

/** Starts the real sandbox as its own process, in memory, on a free loopback port. */
export function startSandboxProcess(
  timeoutMs = 30_000,
  /** More options of the command line, as `['--rate-limit', '2/60']`. */
  args: string[] = [],
  /** Variables of the sandbox's environment, as a user sets them before starting it. */
  env: Record<string, string> = {},
): Promise<SandboxProcess> {
  return spawnSandbox({ timeoutMs, args: ['--memory', '--test-control', ...args], env });
}

export interface SpawnOptions {
  /** How long it may take to answer. Default 30 s. */
  timeoutMs?: number;
  /** Options of the command line besides `--port 0`, as `['--data-dir', dir]`. */
  args?: string[];
  /** Variables of the sandbox's environment, as a user sets them before starting it. */
  env?: Record<string, string>;
  /**
   * Run the built `exchange-sandbox` (`dist/main.js`, as `pnpm build` makes it) rather than
   * its sources: what a user runs, start-up included.
   */
  built?: boolean;
}

/** Starts the sandbox as its own process on a free loopback port, with the options given. */
export async function spawnSandbox(options: SpawnOptions = {}): Promise<SandboxProcess> {
  const { timeoutMs = 30_000, args = [], env = {} } = options;
  const entry = options.built
    ? ['dist/main.js']
    : ['--import', 'tsx', '--conditions=@exchange-kit/source', 'src/main.ts'];
  const child: ChildProcess = spawn(process.execPath, [...entry, '--port', '0', ...args], {
    cwd: sandboxDir(),
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, SANDBOX_TOKEN_SECRET: '', ...env },
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  // Its output is read to the end, so it never waits on a full pipe; the banner is kept.
  let printed: string | undefined = '';
  const banner = new Promise<string>((resolve) => {
    child.stdout?.on('data', (chunk) => {
      if (printed === undefined) return;
      printed += chunk;
      const end = printed.search(/^ready$/m);
      if (end < 0) return;
      resolve(printed.slice(0, end));
      printed = undefined;
    });
  });
  const ready = await new Promise<ReadyMessage>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sandbox not ready in ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited with ${code}: ${stderr}`));
    });
    child.on('message', (message: ReadyMessage) => {
      if (message?.type !== 'exchange-sandbox:ready') return;
      clearTimeout(timer);
      resolve(message);
    });
  });
  // The channel has said what it had to; left open, it would keep this process alive.
  child.disconnect();
  return {
    exchangeUrl: ready.exchangeUrl,
    partnerUrl: ready.partnerUrl,
    ...ready.credentials,
    // Printed before the ready message was sent, though the pipe may hand it over after.
    banner: await banner,
    pid: child.pid,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
