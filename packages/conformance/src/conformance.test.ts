import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { requirement } from '@exchange-kit/contract/state-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAdapter } from './adapter.js';
import { catalog } from './catalog.js';
import { SetupError } from './outcome.js';
import { type ConformanceReport, runConformance, siblingRequirements } from './run.js';
import type { Target } from './target.js';
import { type FaultProxy, startFaultProxy } from './testing/fault-proxy.js';
import { faults } from './testing/faults.js';
import { startSandbox } from './testing/sandbox.js';
import { describeConformance } from './vitest.js';

let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let target: Target;
let proxy: FaultProxy;
let baseline: ConformanceReport;

beforeAll(async () => {
  sandbox = await startSandbox();
  target = sandbox.target;
  proxy = await startFaultProxy(target);
});

afterAll(async () => {
  await proxy?.close();
  await sandbox?.close();
});

describe('against the sandbox', () => {
  it('passes every MUST requirement of every profile (its run time goes to pnpm bench)', async () => {
    const started = performance.now();
    baseline = await runConformance(target);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `full run against the sandbox: ${baseline.results.length} requirements, ${baseline.calls} calls, ${seconds.toFixed(2)} s`,
      baseline.summary,
    );
    const broken = baseline.results.filter(
      (r) => r.level === 'MUST' && ['FAIL', 'ERROR'].includes(r.verdict),
    );
    expect(broken.map((r) => `${r.id}: ${r.message}`)).toEqual([]);
    expect(baseline.leftovers).toEqual([]);
  });

  it('has at least one fault for every requirement it can prove on the sandbox', () => {
    const proven = baseline.results.filter((r) => r.verdict === 'PASS').map((r) => r.id);
    const covered = new Set(faults.map((fault) => fault.covers));
    expect(proven.filter((id) => !covered.has(id))).toEqual([]);
    expect(faults.every((fault) => catalog.some((r) => r.id === fault.covers))).toBe(true);
  });
});

describe('verdicts taken from the state tables', () => {
  // The rows are data the scenarios read: a changed row, with the sandbox unchanged, must turn
  // its verdict, the way a regenerated contract would.
  it.each([
    ['ORDER-EDIT-NOT-LIVE', { status: 422 }],
    ['ORDER-CANCEL-LIVE', { next: 'filled' }],
    ['QE-TRADE-NO-METHOD', { next: 'PENDING' }],
  ] as const)('FAILs %s once its row expects %o', async (id, change) => {
    const row = requirement(id).expect as { status: number; next?: string };
    const before = { ...row };
    try {
      expect((await runConformance(target, { only: [id] })).results[0]?.verdict).toBe('PASS');
      Object.assign(row, change);
      const changed = await runConformance(target, { only: [id] });
      expect(changed.results[0]).toMatchObject({ id, verdict: 'FAIL' });
    } finally {
      Object.assign(row, before);
    }
  });
});

describe('fixtures through an adapter', () => {
  it('uses the steps a module gives in place of the default ones', async () => {
    const placed: string[] = [];
    const report = await runConformance(target, {
      only: ['ORDER-CANCEL-LIVE'],
      adapter: {
        async placeLiveOrder(context, fixture, market) {
          placed.push(fixture.clientOrderId);
          return defaultAdapter.placeLiveOrder(context, fixture, market);
        },
      },
    });
    expect(report.results[0]?.verdict).toBe('PASS');
    expect(placed).toHaveLength(2);
    expect(placed.every((id) => id.startsWith(`${report.runId}-`))).toBe(true);
  });

  it('SKIPs with the reason what needs a step the server lacks, never passing it silently', async () => {
    const report = await runConformance(target, {
      only: ['ORDER-CANCEL-ALL-SKIPS-CONDITIONAL'],
      adapter: { placeConditionalOrders: null },
    });
    expect(report.results[0]).toMatchObject({
      verdict: 'SKIP',
      message: 'the adapter says the server cannot place conditional orders',
    });
  });

  it('gives ERROR, not FAIL, when a fixture cannot be made', async () => {
    const report = await runConformance(target, {
      only: ['ORDER-EDIT-LIVE'],
      adapter: {
        placeLiveOrder: async () => {
          throw new SetupError('the back office is down');
        },
      },
    });
    expect(report.results[0]).toMatchObject({
      verdict: 'ERROR',
      message: 'the back office is down',
    });
    expect(report.mustFailures).toEqual(['ORDER-EDIT-LIVE']);
  });

  it('gives ERROR, not FAIL, when the server rate-limits the run', async () => {
    const limited = {
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '300' },
      body: '{"message":"API rate limit exceeded. Please retry after 300s"}',
    };
    proxy.fault = {
      name: 'rate limited',
      covers: 'ORDER-CANCEL-LIVE',
      request: (request) => (request.method === 'PUT' ? limited : request),
    };
    try {
      const report = await runConformance(proxy.target, { only: ['ORDER-CANCEL-LIVE'] });
      expect(report.results[0]?.verdict).toBe('ERROR');
      expect(report.results[0]?.message).toContain('was rate limited (429, Retry-After 300)');
    } finally {
      proxy.fault = undefined;
    }
  });
});

describe('expected failures', () => {
  it('flags an unexpected pass, and counts a failure again once its entry expired', async () => {
    const entry = {
      id: 'ORDER-CANCEL-LIVE',
      reason: 'cancel is being rewritten',
      expires: '2999-01-01',
    };
    const passed = await runConformance(target, { only: [entry.id], expectedFailures: [entry] });
    expect(passed.results[0]).toMatchObject({
      verdict: 'XPASS',
      message: expect.stringContaining('remove it from the expected-failures file'),
    });

    proxy.fault = faults.find((fault) => fault.covers === entry.id);
    try {
      const expired = await runConformance(proxy.target, {
        only: [entry.id],
        expectedFailures: [{ ...entry, expires: '2020-01-01' }],
      });
      expect(expired.results[0]).toMatchObject({
        verdict: 'FAIL',
        message: expect.stringContaining('expired on 2020-01-01'),
      });
      expect(expired.mustFailures).toEqual([entry.id]);
    } finally {
      proxy.fault = undefined;
    }
  });
});

describe('against fault-injected variants of the sandbox', () => {
  const caught: string[] = [];
  const missed: string[] = [];

  afterAll(() => {
    const score = (caught.length / faults.length) * 100;
    console.log(
      `mutation score: ${caught.length}/${faults.length} faults caught (${score.toFixed(1)}%)`,
    );
    if (missed.length > 0) console.log(`missed:\n  ${missed.join('\n  ')}`);
  });

  it.each(faults.map((fault) => [fault.covers, fault.name, fault] as const))(
    '%s fails when %s',
    async (covers, name, fault) => {
      proxy.fault = fault;
      try {
        // The requirements sharing its scenario run too, so the fault is shown to break only what it should.
        const report = await runConformance(proxy.target, { only: siblingRequirements(covers) });
        const verdict = report.results.find((r) => r.id === covers)?.verdict;
        (verdict === 'FAIL' ? caught : missed).push(`${covers} (${name}): ${verdict}`);
        expect(verdict).toBe('FAIL');
        const failed = report.results.filter((r) => r.verdict === 'FAIL').map((r) => r.id);
        expect(failed.sort()).toEqual([covers, ...(fault.alsoFails ?? [])].sort());
      } finally {
        proxy.fault = undefined;
      }
    },
  );
});

describeConformance('the vitest helper', () => target, { profiles: ['loan-book', 'oauth'] });

describe('the CLI against the sandbox', () => {
  const execute = promisify(execFile);
  const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
  const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
  const exchangeConformance = async (runTarget: Target, ...args: string[]) => {
    const credentials = [
      '--exchange-url',
      runTarget.exchangeUrl,
      '--partner-url',
      runTarget.partnerUrl,
      '--token-id',
      runTarget.tokenId,
      '--token-secret',
      runTarget.tokenSecret,
      '--public-api-key',
      runTarget.publicApiKey,
    ];
    try {
      const { stdout } = await execute(tsx, [
        '--conditions=@exchange-kit/source',
        cli,
        'run',
        ...credentials,
        ...args,
      ]);
      return { code: 0, stdout };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'conformance-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('exits 0 and writes the JUnit, JSON and HTML reports', async () => {
    const files = {
      junit: join(folder, 'junit.xml'),
      json: join(folder, 'report.json'),
      html: join(folder, 'report.html'),
    };
    const { code, stdout } = await exchangeConformance(
      target,
      '--profile',
      'loan-book',
      '--profile',
      'oauth',
      ...Object.entries(files).flatMap(([format, file]) => ['--report', `${format}=${file}`]),
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/^PASS {3}STATUS-200-SUCCESS/m);
    expect(stdout).toMatch(/requirements in [\d.]+ s \(\d+ calls\): \d+ PASS/);
    const junit = await readFile(files.junit, 'utf8');
    expect(junit).toContain('<testcase name="STATUS-200-SUCCESS" classname="orders.MUST">');
    const json = JSON.parse(await readFile(files.json, 'utf8'));
    expect(json).toMatchObject({ schemaVersion: 1, mustFailures: [], summary: { FAIL: 0 } });
    expect(await readFile(files.html, 'utf8')).toContain('<th>loan-book</th>');
  });

  it('loads an adapter module given with --adapter', async () => {
    const module = join(folder, 'adapter.mjs');
    await writeFile(module, 'export default { placeConditionalOrders: null };\n');
    const { code, stdout } = await exchangeConformance(
      target,
      '--only',
      'ORDER-CANCEL-ALL-SKIPS-CONDITIONAL',
      '--adapter',
      module,
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^SKIP {3}ORDER-CANCEL-ALL-SKIPS-CONDITIONAL {2}the adapter says the server cannot place conditional orders$/m,
    );
  });

  it('exits 1 on a failed MUST, showing what was received, what is documented and a curl without secrets', async () => {
    proxy.fault = faults.find((fault) => fault.covers === 'STATUS-200-SUCCESS');
    try {
      const { code, stdout } = await exchangeConformance(proxy.target, '--profile', 'loan-book');
      expect(code).toBe(1);
      expect(stdout).toMatch(
        /^FAIL {3}STATUS-200-SUCCESS {2}getLoanBook answered 203 instead of 200/m,
      );
      expect(stdout).toContain('received:   203');
      expect(stdout).toContain('documented: status 200');
      expect(stdout).toContain(`curl -i -X GET '${proxy.target.exchangeUrl}/ir_ladders/`);
      expect(stdout).not.toContain(target.tokenSecret);

      const expected = join(folder, 'expected.json');
      // The 203 breaks the status table and, being undocumented, the loan book's response too.
      const reason = 'loan book answers 203 until fixed';
      await writeFile(
        expected,
        JSON.stringify(
          ['STATUS-200-SUCCESS', 'RESPONSE-GET-LOAN-BOOK'].map((id) => ({
            id,
            reason,
            expires: '2999-01-01',
          })),
        ),
      );
      const known = await exchangeConformance(
        proxy.target,
        '--profile',
        'loan-book',
        '--expected-failures',
        expected,
      );
      expect(known.code).toBe(0);
      expect(known.stdout).toMatch(
        /^XFAIL {2}STATUS-200-SUCCESS {2}expected failure \(loan book answers 203 until fixed\)/m,
      );
    } finally {
      proxy.fault = undefined;
    }
  });
});
