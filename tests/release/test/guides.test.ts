/**
 * The guides, followed as a stranger follows them: each command of a page run as the page shows
 * it, in a scratch project outside the repository, each sample saved under the name the page
 * gives and run as the page says, against a sandbox started as the page says in a fresh clone.
 * The only difference is the registry: an `.npmrc` makes npm take `@exchange-kit` from the
 * rehearsal's release.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { repoRoot } from '../src/workspace.js';

const run = promisify(execFile);
const registryUrl = inject('registryUrl');
const clone = inject('clone');
const released = inject('released');
const docs = join(repoRoot, 'apps/docs');
const ownSecret = `own-${randomBytes(12).toString('hex')}`;
const ownSecondSecret = `own-second-${randomBytes(12).toString('hex')}`;

interface Page {
  text: string;
  /** The shell blocks, in page order. */
  shell: string[];
  /** The included samples, in page order, as paths from apps/docs. */
  samples: string[];
}

async function page(name: string): Promise<Page> {
  const text = await readFile(join(docs, 'site/guide', `${name}.md`), 'utf8');
  return {
    text,
    shell: [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string),
    samples: [...text.matchAll(/^<<< @\/\.\.\/(\S+)$/gm)].map((m) => m[1] as string),
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let scratch: string;
let readerEnv: NodeJS.ProcessEnv;
let sandbox: ChildProcess | undefined;
let sandboxUrl: string;
const timings: Record<string, number> = {};
const projects = new Map<string, Promise<string>>();

/** A reader's shell: their environment, none of this run's npm or sandbox variables. */
function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_(config|package|lifecycle)_|SANDBOX_|VITEST|TINYPOOL)/i.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'exchange-kit-guides-'));
  // The reader's own npm configuration, plus the one line that points our scope at the
  // rehearsal's registry.
  const userNpmrc = join(homedir(), '.npmrc');
  const npmrc = join(scratch, 'npmrc');
  await writeFile(
    npmrc,
    `${existsSync(userNpmrc) ? await readFile(userNpmrc, 'utf8') : ''}\n@exchange-kit:registry=${registryUrl}\n`,
  );
  readerEnv = shellEnv({
    npm_config_userconfig: npmrc,
    SANDBOX_TOKEN_SECRET: ownSecret,
    SANDBOX_SECOND_TOKEN_SECRET: ownSecondSecret,
  });
  // The projects are set up while the sandbox starts: neither needs the other. Each journey
  // awaits its own; the catch only keeps a failure from being reported before that.
  for (const name of ['backend', 'server', 'frontend']) {
    const ready = page(name).then((guide) => setUp(guide, name));
    ready.catch(() => {});
    projects.set(name, ready);
  }

  const started = Date.now();
  const backend = await page('backend');
  const start = backend.shell.find((block) => /\bsandbox\b/.test(block));
  if (!start) throw new Error('the backend guide shows no command that starts the sandbox');
  // The page's own port would clash with any sandbox already on this machine.
  const port = await freePort();
  sandbox = spawn('bash', ['-e', '-c', start], {
    cwd: clone,
    env: { ...readerEnv, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  for (const stream of [sandbox.stdout, sandbox.stderr]) {
    stream?.on('data', (chunk) => {
      output += chunk;
    });
  }
  let exited = false;
  sandbox.once('exit', () => {
    exited = true;
  });
  // Ready when it answers, as a reader sees it: its health page on the port it was given.
  sandboxUrl = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 150_000; ; ) {
    if (exited) throw new Error(`the sandbox exited: ${output}`);
    const healthy = await fetch(`${sandboxUrl}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) throw new Error(`no sandbox in 150 s: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  timings.sandbox = (Date.now() - started) / 1000;
}, 180_000);

afterAll(async () => {
  if (sandbox?.pid && sandbox.exitCode === null) {
    const exited = new Promise((resolve) => sandbox?.once('exit', resolve));
    // The whole group the page's command started: npx, pnpm and the sandbox itself.
    process.kill(-sandbox.pid, 'SIGTERM');
    await exited;
  }
  console.log(`guide journeys (s): ${JSON.stringify(timings)}`);
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** Runs the page's setup block in the scratch folder and returns the project it made. */
async function setUp(guide: Page, name: string): Promise<string> {
  const setup = guide.shell.find((block) => block.includes('npm install'));
  if (!setup) throw new Error(`the ${name} guide shows no npm install`);
  expect(setup, `the ${name} guide makes the project an ES module`).toContain(
    'npm pkg set type=module',
  );
  const started = Date.now();
  await run('bash', ['-e', '-c', setup], { cwd: scratch, env: readerEnv, timeout: 240_000 });
  timings[`${name} setup`] = (Date.now() - started) / 1000;
  const dir = /^mkdir (\S+)/m.exec(setup)?.[1];
  if (!dir) throw new Error(`the ${name} guide's setup makes no folder`);
  const project = join(scratch, dir);
  const manifest = JSON.parse(await readFile(join(project, 'package.json'), 'utf8'));
  expect(manifest.type).toBe('module');
  for (const [pkg, range] of Object.entries<string>(manifest.dependencies ?? {})) {
    const release = released.find((r) => r.name === pkg);
    if (release) expect(range, pkg).toBe(`^${release.version}`);
  }
  return project;
}

/**
 * Type-checks the project's TypeScript as the page says, with the `tsconfig.json` it shows (saved
 * with the samples): strict, against the packages the release installed.
 */
async function typeCheck(guide: Page, project: string, name: string): Promise<void> {
  expect(guide.text, `the ${name} guide says how to check the types`).toContain(
    '`npx tsc --noEmit`',
  );
  const tsconfig = JSON.parse(await readFile(join(project, 'tsconfig.json'), 'utf8'));
  expect(tsconfig.compilerOptions?.strict, `the ${name} guide's tsconfig.json`).toBe(true);
  const started = Date.now();
  await run('npx', ['tsc', '--strict', '--noEmit'], {
    cwd: project,
    env: readerEnv,
    timeout: 120_000,
  }).catch((error) => {
    throw new Error(
      `npx tsc --strict --noEmit in the ${name} project:\n${error.stdout}${error.stderr}`,
    );
  });
  timings[`${name} tsc`] = (Date.now() - started) / 1000;
}

/** Saves each sample of the page under the name the page gives it, exactly as the page shows it. */
async function saveSamples(guide: Page, project: string, wholeOnly = false): Promise<string[]> {
  const names: string[] = [];
  // The frontend guide also shows parts of other flows; what it runs is its whole files.
  for (const sample of guide.samples.filter((path) => !wholeOnly || !path.includes('#'))) {
    expect(sample, 'a sample shown in part').not.toContain('#');
    const name = basename(sample);
    expect(guide.text, `the page names ${name}`).toContain(`\`${name}\``);
    await writeFile(join(project, name), await readFile(join(docs, sample)));
    names.push(name);
  }
  return names;
}

describe('the backend guide', () => {
  let project: string;
  let guide: Page;
  /** The bot of "A bot that reconciles": one more file of the backend guide's project. */
  let reconcile: Page;
  const outputs = new Map<string, string>();

  beforeAll(async () => {
    guide = await page('backend');
    reconcile = await page('reconcile');
    project = (await projects.get('backend')) as string;
  }, 300_000);

  it('runs every sample as the page says, each exiting 0, against the sandbox', async () => {
    const names = [
      ...(await saveSamples(guide, project)),
      ...(await saveSamples(reconcile, project)),
    ].filter((name) => name.endsWith('.ts'));
    expect(names).toContain('first-call.ts');
    const command = /run it with `(npx tsx) first-call\.ts`/.exec(guide.text)?.[1];
    expect(command, 'the page says how to run a sample').toBe('npx tsx');
    expect(reconcile.text, 'the bot runs as the other samples do').toContain(
      'run it with `npx tsx reconcile.ts`',
    );
    const started = Date.now();
    for (const name of names) {
      const { stdout } = await run('npx', ['tsx', name], {
        cwd: project,
        env: { ...readerEnv, SANDBOX_URL: sandboxUrl },
        timeout: 60_000,
      }).catch((error) => {
        throw new Error(`npx tsx ${name}: ${error.stderr || error.message}`);
      });
      outputs.set(name, stdout);
    }
    timings['backend samples'] = (Date.now() - started) / 1000;
    expect(outputs.get('first-call.ts')).toMatch(/^order \d+ is live$/m);
    expect(outputs.get('edit-cancel.ts')).toContain('already cancelled');
    expect(outputs.get('stops.ts')).toContain('cancelled 2 stops: true');
    // 0.1 + 0.2 is 0.30000000000000004 as a double: rounded to the step it goes out as 0.3, and
    // the price rounded down to the tick; the order comes back with exactly those digits.
    expect(outputs.get('decimals.ts')).toMatch(/^tick 1, step 0\.00000001: 0\.3 at 1000$/m);
    expect(outputs.get('decimals.ts')).toMatch(/^placed 0\.3 at 1000$/m);
    expect(outputs.get('errors.ts')).toMatch(/^rejected with 4\d\d: /m);
    expect(outputs.get('oauth.ts')).toMatch(/^not approved yet: ask again later$/m);
    expect(outputs.get('oauth.ts')).toMatch(/^the request is approved$/m);
    expect(outputs.get('oauth.ts')).toMatch(/^user \d+ \(\w+\) holds \d+ crypto accounts$/m);
    expect(outputs.get('intent.ts')).toMatch(/^intent [0-9a-f-]{36}, strategy /m);
    expect(outputs.get('transactions.ts')).toMatch(/^\d+ transactions since yesterday$/m);
    // The private channel told of the order placed and cancelled after subscribing, in order.
    expect(outputs.get('events.ts')).toMatch(
      /^order (\d+) live at 1000\norder \1 cancelled at 1000$/m,
    );
    // The bot checked its fill, fee, positions, withdrawal and both balances, and none failed.
    const bot = outputs.get('reconcile.ts');
    expect(bot).not.toMatch(/^FAILED/m);
    expect(bot).toMatch(/^ok: executions\/me shows the same fills$/m);
    expect(bot).toMatch(/^ok: order \d+: fee -47\.5 JPY, estimated 47\.5, order_fee 47\.5$/m);
    expect(bot).toMatch(/^ok: BTC [\d.]+ \+ 1 entries = balance [\d.]+$/m);
    expect(bot).toMatch(/^ok: JPY [\d.]+ \+ \d+ entries = balance [\d.]+$/m);
    expect(bot).toMatch(/^ok: withdrawal \d+ holds 0\.0105 BTC$/m);
  });

  it("npx tsc --noEmit: every sample type-checks, strict, with the page's tsconfig.json", async () => {
    await saveSamples(guide, project);
    await saveSamples(reconcile, project);
    await typeCheck(guide, project, 'backend');
  });
});

describe('the server implementers guide', () => {
  let project: string;
  let guide: Page;

  beforeAll(async () => {
    guide = await page('server');
    const backend = await page('backend');
    // One sandbox serves both journeys: the server guide must start it the same way.
    expect(guide.shell.find((block) => /\bsandbox\b/.test(block))).toBe(
      backend.shell.find((block) => /\bsandbox\b/.test(block)),
    );
    project = (await projects.get('server')) as string;
    await saveSamples(guide, project);
  }, 300_000);

  it('bash run.sh: npx exchange-conformance lists and runs the suite, with reports', async () => {
    expect(guide.text).toContain('`bash run.sh`');
    const started = Date.now();
    const { stdout } = await run('bash', ['run.sh'], {
      cwd: project,
      env: { ...readerEnv, SANDBOX_URL: sandboxUrl },
      timeout: 120_000,
    });
    timings['server run.sh'] = (Date.now() - started) / 1000;
    expect(stdout).toMatch(/PASS\s+ORDER-CANCEL-LIVE/);
    await expect(readFile(join(project, 'conformance.xml'), 'utf8')).resolves.toContain(
      '<testsuite',
    );
    await expect(readFile(join(project, 'conformance.html'), 'utf8')).resolves.toMatch(/<html/i);
  });

  it('npx tsx run-conformance.ts: the suite from a script', async () => {
    const { stdout } = await run('npx', ['tsx', 'run-conformance.ts'], {
      cwd: project,
      env: { ...readerEnv, SANDBOX_URL: sandboxUrl },
      timeout: 120_000,
    });
    expect(stdout).toMatch(/^PASS {2}ORDER-CANCEL-LIVE$/m);
    expect(stdout).toMatch(/"FAIL":0/);
  });

  it('npx vitest run: one test per requirement inside your own suite', async () => {
    expect(guide.text).toContain('`npx vitest run`');
    const { stdout } = await run('npx', ['vitest', 'run'], {
      cwd: project,
      env: { ...readerEnv, SANDBOX_URL: sandboxUrl, CI: '1' },
      timeout: 120_000,
    });
    const passed = /Tests\s+(\d+) passed/.exec(stripVTControlCharacters(stdout))?.[1];
    // One test per requirement of the two profiles.
    expect(Number(passed)).toBeGreaterThanOrEqual(10);
  });

  it("npx tsc --noEmit: every sample type-checks, strict, with the page's tsconfig.json", async () => {
    await typeCheck(guide, project, 'server');
  });
});

describe('the frontend guide', () => {
  let project: string;
  let guide: Page;

  beforeAll(async () => {
    guide = await page('frontend');
    project = (await projects.get('frontend')) as string;
    const names = await saveSamples(guide, project, true);
    expect(names).toEqual(
      expect.arrayContaining(['index.html', 'main.tsx', 'BuyFlow.tsx', 'tsconfig.json']),
    );
  }, 300_000);

  it("npx tsc --noEmit: the page's files type-check, strict, with its tsconfig.json", async () => {
    await typeCheck(guide, project, 'frontend');
  });

  it('npx vite build, npx vite preview: the page runs the buy flow in Chromium to PENDING', async () => {
    expect(guide.text).toContain('`npx vite build`');
    // The page gives the preview a port of its own: Vite's default is the docs' port.
    const previewPort = /`npx vite preview --port (\d+)`/.exec(guide.text)?.[1];
    expect(previewPort, 'the page says where the preview listens').toBeDefined();
    expect(previewPort).not.toBe('4173');
    const started = Date.now();
    await run('npx', ['vite', 'build'], { cwd: project, env: readerEnv, timeout: 120_000 });
    const bundle = await readFile(join(project, 'dist/index.html'), 'utf8');
    expect(bundle).toMatch(/<script type="module"[^>]*src="\/assets\/[^"]+\.js"/);

    // Only the port differs from the page's command: any fixed one may be taken on this machine.
    const port = await freePort();
    const preview = spawn(
      'npx',
      ['vite', 'preview', '--port', String(port), '--strictPort', '--host', '127.0.0.1'],
      { cwd: project, env: readerEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox'],
    });
    try {
      const origin = `http://127.0.0.1:${port}`;
      for (let tries = 0; ; tries += 1) {
        const up = await fetch(origin).then(
          (response) => response.ok,
          () => false,
        );
        if (up) break;
        if (tries > 100) throw new Error('npx vite preview did not answer');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const tab = await browser.newPage();
      tab.setDefaultTimeout(20_000);
      const errors: string[] = [];
      tab.on('pageerror', (error) => errors.push(error.message));
      const calls: { call: string; path: string; token: boolean; bearer?: string }[] = [];
      tab.on('request', (request) => {
        const url = new URL(request.url());
        if (!url.pathname.startsWith('/api/')) return;
        const headers = request.headers();
        calls.push({
          call: `${request.method()} ${url.pathname}`,
          path: `${url.pathname}${url.search}`,
          token: 'x-service-auth' in headers,
          bearer: /^Bearer (\S+)$/.exec(headers.authorization ?? '')?.[1],
        });
      });
      const opened = tab.waitForResponse(
        (response) =>
          response.request().method() === 'POST' &&
          new URL(response.url()).pathname === '/api/v1/session',
      );
      await tab.goto(`${origin}/?sandbox=${encodeURIComponent(sandboxUrl)}`);
      await tab.getByTestId('session').getByText('SANDBOX session').waitFor({ timeout: 30_000 });
      await tab.getByLabel('I accept the terms of service').check();
      await tab.getByRole('button', { name: 'Buy 0.01 BTC with USDC' }).click();
      await tab.locator('.status', { hasText: 'SETTLEMENT_METHOD_REQUIRED' }).waitFor();
      await tab.getByRole('button', { name: 'Pay by USDC transfer' }).click();
      const wallet = tab.getByLabel('Your BTC wallet address');
      const payout = tab.getByRole('button', { name: 'Receive to my BTC wallet' });
      await wallet.or(payout).first().waitFor();
      if (await payout.isVisible()) await payout.click();
      await wallet.fill('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq');
      await tab.getByRole('button', { name: 'Submit' }).click();
      await tab.locator('.status', { hasText: 'PENDING' }).waitFor();
      await expect(tab.getByTestId('funding').textContent()).resolves.toMatch(
        /^Send \S+ USDC to \S+ within \d+ s\.$/,
      );
      expect(errors, 'errors thrown on the page').toEqual([]);
      // The page holds no token secret: nothing it sends carries X-Service-Auth, and it never
      // calls the partner's own endpoints. Opening the session is unsigned; every call of the
      // session after it carries a Bearer JWT signed with the session_secret the provider keeps
      // in memory, naming that session and the path it was sent to.
      const sessionId = ((await (await opened).json()) as { payload: { session_id: string } })
        .payload.session_id;
      expect(calls.filter((c) => c.token || c.call.includes('/partner/'))).toEqual([]);
      const opening = calls.filter((c) => c.call === 'POST /api/v1/session');
      expect(opening).toEqual([expect.objectContaining({ bearer: undefined })]);
      const sessionCalls = calls.filter((c) => c.call !== 'POST /api/v1/session');
      expect(sessionCalls.map((c) => c.call)).toContain('POST /api/v1/settlement/parameters');
      for (const { path, bearer } of sessionCalls) {
        expect(bearer, `${path} carries the session JWT`).toBeDefined();
        const payload = JSON.parse(
          Buffer.from(bearer?.split('.')[1] ?? '', 'base64url').toString('utf8'),
        );
        expect(payload, path).toEqual({ path, session_id: sessionId, nonce: expect.anything() });
      }
    } finally {
      await browser.close();
      if (preview.pid && preview.exitCode === null) {
        const exited = new Promise((resolve) => preview.once('exit', resolve));
        process.kill(-preview.pid, 'SIGTERM');
        await exited;
      }
      timings['frontend build and flow'] = (Date.now() - started) / 1000;
    }
  });
});
