/**
 * Every runnable sample of the site, run as a reader runs it (`tsx file.ts`) against the real
 * sandbox in its own process; each must exit 0 and print what the guide says it prints. The
 * sandbox is started with a token secret of its own, set the way its banner says, and the
 * samples get the same variables: a reader who chooses a secret is not left with the demo one.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { catalog, parseExpectedFailures } from '@exchange-kit/conformance';
import { createPartnerClient, type IntentInput } from '@exchange-kit/partner-client';
import { orderForIntent } from '@exchange-kit/react-hooks';
import { type SandboxProcess, startSandboxProcess } from '@exchange-kit/sandbox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const docsDir = fileURLToPath(new URL('../', import.meta.url));
const cli = fileURLToPath(new URL('../../../packages/conformance/src/cli/cli.ts', import.meta.url));
const outputDir = fileURLToPath(new URL('../test-output/examples/', import.meta.url));
const ownSecret = `own-${randomBytes(12).toString('hex')}`;
const ownSecondSecret = `own-second-${randomBytes(12).toString('hex')}`;
type PayoutMethod = NonNullable<IntentInput['payout_settlement']>['method'];
let sandbox: SandboxProcess;
let sampleEnv: Record<string, string>;

beforeAll(async () => {
  await mkdir(outputDir, { recursive: true });
  sandbox = await startSandboxProcess(30_000, [], {
    SANDBOX_TOKEN_SECRET: ownSecret,
    SANDBOX_SECOND_TOKEN_SECRET: ownSecondSecret,
  });
  sampleEnv = {
    SANDBOX_URL: sandbox.exchangeUrl,
    SANDBOX_TOKEN_ID: sandbox.tokenId,
    SANDBOX_TOKEN_SECRET: ownSecret,
    SANDBOX_SECOND_TOKEN_SECRET: ownSecondSecret,
    SANDBOX_PUBLIC_API_KEY: sandbox.publicApiKey,
  };
});
afterAll(() => sandbox?.stop());

/** The environment a reader's shell has: theirs, without the repository's test variables. */
function readerEnv(variables: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('SANDBOX_')) env[key] = value;
  }
  return { ...env, ...variables };
}

async function run(example: string, variables = sampleEnv): Promise<string> {
  const { stdout } = await promisify(execFile)(
    `${docsDir}node_modules/.bin/tsx`,
    ['--conditions=@exchange-kit/source', `${docsDir}examples/${example}`],
    { cwd: outputDir, env: readerEnv(variables), timeout: 45_000 },
  );
  return stdout;
}

describe('one set of names', () => {
  it('the samples read exactly the variables the sandbox reads, and SANDBOX_URL', async () => {
    const read = new Set<string>();
    for (const dir of ['backend', 'server', 'frontend']) {
      for (const file of await readdir(`${docsDir}examples/${dir}`)) {
        const text = await readFile(`${docsDir}examples/${dir}/${file}`, 'utf8');
        for (const [, name] of text.matchAll(/process\.env\.(\w+)/g)) read.add(name as string);
        for (const [, name] of text.matchAll(/\$\{(\w+):-/g)) read.add(name as string);
      }
    }
    // The sandbox's own: a secret set in SANDBOX_TOKEN_SECRET (or SANDBOX_SECOND_TOKEN_SECRET)
    // reaching both is proved below.
    expect([...read].sort()).toEqual([
      'SANDBOX_PUBLIC_API_KEY',
      'SANDBOX_SECOND_TOKEN_ID',
      'SANDBOX_SECOND_TOKEN_SECRET',
      'SANDBOX_TOKEN_ID',
      'SANDBOX_TOKEN_SECRET',
      'SANDBOX_URL',
    ]);
  });

  it('a sample left on the demo secret is refused by a sandbox with a secret of its own', async () => {
    const { SANDBOX_TOKEN_SECRET: _, ...withoutSecret } = sampleEnv;
    await expect(run('backend/first-call.ts', withoutSecret)).rejects.toThrow(
      /AuthenticationError/,
    );
  });
});

describe('runnable samples against the sandbox', () => {
  it('backend/first-call.ts: lists products and places a live order', async () => {
    const out = await run('backend/first-call.ts');
    expect(out).toMatch(/^product \d+: \w+/m);
    expect(out).toMatch(/^order \d+ is live$/m);
  });

  it('backend/edit-cancel.ts: edits and cancels by either id', async () => {
    const out = await run('backend/edit-cancel.ts');
    expect(out).toMatch(/^order \d+ now at 1001$/m);
    expect(out).toMatch(/^order \d+ is cancelled$/m);
    expect(out).toContain('already cancelled');
  });

  it('backend/cancel-all.ts: cancel_all with filters, then without', async () => {
    const out = await run('backend/cancel-all.ts');
    // Earlier samples' live buys of the product go too; the sell stays for the unfiltered call.
    const cancelled = /^cancel_all cancelled (.*)$/m.exec(out)?.[1]?.split(', ');
    expect(cancelled?.filter((id) => id.startsWith('all-'))).toEqual([
      expect.stringMatching(/^all-\w+-buy$/),
    ]);
    expect(out).toMatch(/^then [1-9]\d* more$/m);
  });

  it('backend/stops.ts: a trailing stop follows the price, both stops cancelled', async () => {
    const out = await run('backend/stops.ts');
    const stops = /^bought at (\S+), trailing stop triggers at (\S+)$/m.exec(out);
    expect(Number(stops?.[2])).toBeCloseTo(Number(stops?.[1]) * 0.95, 6);
    expect(out).toContain('cancelled 2 stops: true');
  });

  it('backend/decimals.ts: rounded to the tick and the step, exactly', async () => {
    const out = await run('backend/decimals.ts');
    expect(out).toContain('tick 1, step 0.00000001: 0.3 at 1000');
    expect(out).toContain('placed 0.3 at 1000');
  });

  it('backend/withdraw.ts: holds a withdrawal, cancels it while pending, reads them back', async () => {
    const out = await run('backend/withdraw.ts');
    expect(out).toMatch(/^withdrawal \d+ pending: 0\.01 BTC \+ 0\.0005 fee held$/m);
    expect(out).toMatch(/^withdrawal \d+ cancelled$/m);
    expect(out).toMatch(/^BTC withdrawals so far: .*[1-9]\d* cancelled/m);
  });

  it('backend/reconcile.ts: one fill seen everywhere, the ledger explains each balance', async () => {
    const out = await run('backend/reconcile.ts');
    expect(out).not.toMatch(/^FAILED/m);
    // The page shows what it prints, line for line; only ids, prices and balances differ.
    const page = await readFile(`${docsDir}site/guide/reconcile.md`, 'utf8');
    const printed = /^```text\n([\s\S]*?)^```$/m.exec(page)?.[1] ?? '';
    const shape = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((l) => l.replace(/[\d.]+/g, 'N'));
    expect(shape(out)).toEqual(shape(printed));
    // And the digits that follow from the demo rates: a maker fee of 0.05% of 95000 JPY, in
    // the quote currency, so the BTC ledger holds the trade alone.
    expect(out).toMatch(/^ok: order \d+: fee -47\.5 JPY, estimated 47\.5, order_fee 47\.5$/m);
    expect(out).toMatch(/^BTC: 0\.01 trade\nok: BTC [\d.]+ \+ 1 entries = /m);
    expect(out).toMatch(/^ok: withdrawal \d+ holds 0\.0105 BTC$/m);
  });

  it('backend/events.ts: the orders channel tells of the order placed, then cancelled', async () => {
    const out = await run('backend/events.ts');
    expect(out).toMatch(/^order (\d+) live at 1000\norder \1 cancelled at 1000$/m);
  });

  it('backend/errors.ts: a typed validation error', async () => {
    expect(await run('backend/errors.ts')).toMatch(/^rejected with 4\d\d: /m);
  });

  it('backend/retries.ts: a client with retries, rate limit and logging hooks', async () => {
    const out = await run('backend/retries.ts');
    expect(out).toMatch(/GET \S+\/ir_ladders\/BTC 200/);
    expect(out).toMatch(/GET \S+\/products\/1\/price_levels 200\n\d+ bid levels for product 1/);
  });

  it('backend/oauth.ts: acts for a user through an approved OAuth request', async () => {
    const printed = await run('backend/oauth.ts');
    expect(printed).toMatch(/^not approved yet: ask again later$/m);
    expect(printed).toMatch(/^the request is approved$/m);
    expect(printed).toMatch(/^user \d+ \(\w+\) holds \d+ crypto accounts$/m);
  });

  it('backend/intent.ts and transactions.ts: creates an intent and lists transactions', async () => {
    expect(await run('backend/intent.ts')).toMatch(
      /^intent [0-9a-f-]{36}, strategy ONE_TO_ONE_ATTEMPTED$/m,
    );
    expect(await run('backend/transactions.ts')).toMatch(/^\d+ transactions since yesterday$/m);
  });

  it('frontend/intent-flow.tsx fulfils the intent backend/intent.ts creates', async () => {
    const backendSample = await readFile(`${docsDir}examples/backend/intent.ts`, 'utf8');
    const frontendSample = await readFile(`${docsDir}examples/frontend/intent-flow.tsx`, 'utf8');
    const payout =
      /payout_settlement: \{ method: '(\w+)', currency: '(\w+)', quantity: '([\d.]+)' \}/.exec(
        backendSample,
      );
    const asked = /createIntent\(\{ currency: '(\w+)', quantity: '([\d.]+)' \}\)/.exec(
      frontendSample,
    );
    const fundWith = /orderForIntent\(intent, '(\w+)'\)/.exec(frontendSample)?.[1];
    if (!payout || !asked || !fundWith) throw new Error('the samples no longer read as expected');
    const [, method = '', currency = '', quantity = ''] = payout;
    // The page asks for the intent the backend guide creates...
    expect([asked[1], asked[2]]).toEqual([currency, quantity]);
    // ...and fulfils it, as the page does, against the sandbox.
    const { partnerUrl: partnersUrl, publicApiKey, tokenId } = sandbox;
    const backend = createPartnerClient({
      partnersUrl,
      publicApiKey,
      tokenId,
      tokenSecret: ownSecret,
    });
    const intent = await backend.intents.create({
      payout_settlement: { method: method as PayoutMethod, currency, quantity },
      partner_order_id: `intent-flow-${Date.now()}`,
      partner_tags: ['docs'],
    });
    const page = createPartnerClient({ partnersUrl, publicApiKey });
    const session = await page.sessions.create();
    const tx = await page.transactions.create({
      ...orderForIntent(intent, fundWith),
      session_id: session.session_id,
      terms_of_service: { accepted: true, terms_href: session._links.terms_of_service.href },
    });
    expect(tx.status).toBe('SETTLEMENT_METHOD_REQUIRED');
  });

  it('server/run-conformance.ts: the suite passes against the sandbox and writes its reports', async () => {
    const out = await run('server/run-conformance.ts');
    expect(out).toMatch(/^PASS {2}ORDER-CANCEL-LIVE$/m);
    expect(out).toMatch(/"FAIL":0/);
  });

  it('server/expected-failures.json is a valid expected-failures file naming a real requirement', async () => {
    const text = await readFile(`${docsDir}examples/server/expected-failures.json`, 'utf8');
    const entries = parseExpectedFailures(text);
    for (const entry of entries) expect(catalog.map((r) => r.id)).toContain(entry.id);
  });

  it('server/run.sh: the script of the server guide, its npx calls running the CLI from source', async () => {
    await copyFile(
      `${docsDir}examples/server/expected-failures.json`,
      `${outputDir}expected-failures.json`,
    );
    // The script runs as written; only `npx exchange-conformance` is the CLI from source here
    // (the release rehearsal runs it with the published package).
    const { stdout } = await promisify(execFile)(
      'bash',
      [
        '-c',
        `npx() { shift; "${docsDir}node_modules/.bin/tsx" --conditions=@exchange-kit/source "${cli}" "$@"; }; set -e; . "${docsDir}examples/server/run.sh"`,
      ],
      { cwd: outputDir, env: readerEnv(sampleEnv), timeout: 90_000 },
    );
    expect(stdout.match(/ORDER-CANCEL-LIVE/g)?.length).toBeGreaterThanOrEqual(2);
    await expect(readFile(`${outputDir}conformance.xml`, 'utf8')).resolves.toContain('<testsuite');
  });
});
