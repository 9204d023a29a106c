import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { requirement, requirements } from '@exchange-kit/contract/state-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeConformance } from '../cli/run-cli.test-support.js';
import { consoleSummary } from '../reports/console.js';
import { curlOf } from '../reports/curl.js';
import { sandboxTestControl } from '../sandbox-test-control.js';
import { example } from '../scenarios/partner.js';
import { signFor } from '../signing/sign.js';
import { type FaultProxy, startFaultProxy } from '../testing/fault-proxy.js';
import {
  cancelAfterEditIgnored,
  crashWithoutTerms,
  faults,
  fillLost,
  forgetfulFault,
  sameOrderIdFault,
} from '../testing/faults/index.js';
import { is } from '../testing/faults/proxied.js';
import { checkJunit, parseXml } from '../testing/junit-schema.js';
import { startSandboxTarget } from '../testing/sandbox.js';
import { describeConformance } from '../vitest.js';
import { defaultAdapter } from './adapter.js';
import { catalog, catalogById } from './catalog.js';
import { SpecClient } from './context.js';
import type { RecordedCall } from './outcome.js';
import { SetupError } from './outcome.js';
import {
  type ConformanceReport,
  CredentialsRefusedError,
  runConformance,
  selectRequirements,
  siblingRequirements,
} from './run.js';
import type { Target } from './target.js';

let sandbox: Awaited<ReturnType<typeof startSandboxTarget>>;
let target: Target;
let proxy: FaultProxy;
let baseline: ConformanceReport;

beforeAll(async () => {
  sandbox = await startSandboxTarget();
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
    // A statement about values that found nothing to judge would pass unseen as a SKIP.
    const unjudged = baseline.results.filter((r) => r.kind === 'value' && r.verdict !== 'PASS');
    expect(unjudged.map((r) => `${r.id}: ${r.verdict} ${r.message}`)).toEqual([]);
  });

  // Four full runs: on a machine shared with other tests they outlast one test's default time.
  it('passes the same with scenarios side by side (--concurrency), and prints both run times', async () => {
    // Run again one at a time just before, so both times are taken on a warm sandbox.
    // Generated bodies and sequences scale with --max-examples, not with concurrency: a few do.
    const time = async (concurrency: number, runTarget: Target) => {
      const started = performance.now();
      const report = await runConformance(runTarget, { concurrency, maxExamples: 3 });
      return { report, seconds: (performance.now() - started) / 1000 };
    };
    const sequential = await time(1, target);
    const parallel = await time(4, target);
    console.log(
      `full run: ${sequential.seconds.toFixed(2)} s one scenario at a time, ${parallel.seconds.toFixed(2)} s with --concurrency 4`,
    );
    expect(parallel.report.summary).toEqual(sequential.report.summary);
    expect(parallel.report.mustFailures).toEqual([]);
    expect(parallel.report.leftovers).toEqual([]);

    // The sandbox answers in about a millisecond; a server across a network does not. The
    // times are printed for the bench; what is asserted is that calls were in flight together.
    let inFlight = 0;
    let mostInFlight = 0;
    proxy.fault = {
      name: '10 ms of latency on every call',
      covers: 'STATUS-200-SUCCESS',
      request: async (request) => {
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 10));
        inFlight--;
        return request;
      },
    };
    try {
      const far = await time(1, proxy.target);
      const farParallel = await time(4, proxy.target);
      console.log(
        `full run 10 ms away: ${far.seconds.toFixed(2)} s one scenario at a time, ${farParallel.seconds.toFixed(2)} s with --concurrency 4`,
      );
      expect(farParallel.report.mustFailures).toEqual([]);
      expect(mostInFlight).toBeGreaterThan(1);
    } finally {
      proxy.fault = undefined;
    }
  }, 120_000);

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

describe('a response requirement of an operation never answered with success', () => {
  it('is an ERROR naming the failure before it, never a PASS of the error bodies', async () => {
    proxy.fault = {
      name: 'trading accounts not found',
      covers: 'RESPONSE-GET-TRADING-ACCOUNT',
      request: (request) =>
        is(request, 'getTradingAccount')
          ? {
              status: 404,
              headers: { 'content-type': 'application/json' },
              body: '{"message":"Not found"}',
            }
          : request,
    };
    try {
      const report = await runConformance(proxy.target, {
        only: ['TRADING-ACCOUNT-FOLLOWS-POSITIONS', 'RESPONSE-GET-TRADING-ACCOUNT'],
      });
      const response = report.results.find((r) => r.id === 'RESPONSE-GET-TRADING-ACCOUNT');
      expect(response?.verdict).toBe('ERROR');
      expect(response?.message).toContain(
        'no call of getTradingAccount was answered with success (404)',
      );
      expect(response?.message).toContain('TRADING-ACCOUNT-FOLLOWS-POSITIONS (WARN)');
      // A failure the caller expects is not blamed: the read is unproven, a SKIP saying why.
      const expected = await runConformance(proxy.target, {
        only: ['TRADING-ACCOUNT-FOLLOWS-POSITIONS', 'RESPONSE-GET-TRADING-ACCOUNT'],
        expectedFailures: [
          { id: 'TRADING-ACCOUNT-FOLLOWS-POSITIONS', reason: 'spot only', expires: '2099-01-01' },
        ],
      });
      expect(expected.results.map((r) => [r.id, r.verdict])).toEqual([
        ['TRADING-ACCOUNT-FOLLOWS-POSITIONS', 'XFAIL'],
        ['RESPONSE-GET-TRADING-ACCOUNT', 'SKIP'],
      ]);
    } finally {
      proxy.fault = undefined;
    }
  });
});

describe('credentials, checked before any requirement', () => {
  it('stops with the refused credential named, instead of blaming the server', async () => {
    const wrongSecret = runConformance({ ...target, tokenSecret: `${target.tokenSecret}-not` });
    await expect(wrongSecret).rejects.toThrow(CredentialsRefusedError);
    await expect(wrongSecret).rejects.toMatchObject({
      credential: 'token',
      message: expect.stringContaining(`the server refused the API token ${target.tokenId}`),
    });
    const wrongKey = runConformance(
      { ...target, publicApiKey: 'pk_nobody' },
      { profiles: ['partner-sessions'] },
    );
    await expect(wrongKey).rejects.toMatchObject({
      credential: 'public-api-key',
      message: expect.stringContaining('does not know public API key pk_nobody'),
    });
  });
});

describe('a server that keeps no state', () => {
  it('is reported once, and what needs two distinct orders is an ERROR with the reason', async () => {
    proxy.fault = sameOrderIdFault();
    try {
      const report = await runConformance(proxy.target, {
        only: ['AUTH-PATH-MISMATCH', 'ORDER-CANCEL-LIVE'],
      });
      expect(report.stateless).toMatch(
        /^the server does not seem to keep state: order ck\w+-\d+-\d+ was given id \S+, the id of order ck\S+ made before it$/,
      );
      for (const result of report.results) {
        expect(result).toMatchObject({
          verdict: 'ERROR',
          message: expect.stringContaining('precondition does not hold'),
        });
      }
      const summary = consoleSummary(report);
      expect(summary.split('does not seem to keep state')).toHaveLength(2);
    } finally {
      proxy.fault = undefined;
    }
  });

  it('is reported when an order just made cannot be read back', async () => {
    proxy.fault = forgetfulFault;
    try {
      const report = await runConformance(proxy.target, { only: ['ORDER-EDIT-LIVE'] });
      expect(report.stateless).toMatch(
        /^the server does not seem to keep state: order \S+, just created, cannot be read back \(GET \/orders\/\S+ answered 404\)$/,
      );
      expect(report.results[0]).toMatchObject({
        verdict: 'ERROR',
        message: expect.stringContaining('precondition does not hold'),
      });
    } finally {
      proxy.fault = undefined;
    }
  });
});

describe('a requirement whose scenario cannot run', () => {
  it('says which profile to add, or which check it waits on, never only that nothing ran', async () => {
    const report = await runConformance(target, {
      profiles: ['orders'],
      only: ['LOAN-MARGIN-BORROWS'],
    });
    expect(report.results.map((r) => [r.id, r.verdict, r.message])).toEqual([
      [
        'LOAN-MARGIN-BORROWS',
        'SKIP',
        expect.stringContaining(
          'the loans profile, which this run leaves out (add --profile loans)',
        ),
      ],
    ]);
    const lending = await runConformance(target, {
      only: ['LOAN-LENDER-CHOOSES', 'LOAN-REPAID-CANNOT-CHOOSE'],
    });
    expect(lending.results.map((r) => [r.id, r.verdict])).toEqual([
      ['LOAN-LENDER-CHOOSES', 'SKIP'],
      ['LOAN-REPAID-CANNOT-CHOOSE', 'SKIP'],
    ]);
    expect(lending.results[1]?.message).toMatch(
      /^no loan was repaid: LOAN-LENDER-CHOOSES skipped before one was \(.*borrowFromLoanBid/,
    );
  });
});

describe('selection and replay', () => {
  it('selects by operation and by spec tag beside profile and id', () => {
    const byOperation = selectRequirements({ operations: ['cancelAllOrders'] }).selected;
    expect(byOperation.map((r) => r.id)).toContain('ORDER-CANCEL-ALL-FILTER-SIDE');
    expect(byOperation.every((r) => r.operations.includes('cancelAllOrders'))).toBe(true);
    const byTag = selectRequirements({ tags: ['settlement'], profiles: ['partner-transactions'] });
    expect(byTag.selected.length).toBeGreaterThan(0);
    expect(byTag.selected.map((r) => r.id)).not.toContain('ORDER-CANCEL-LIVE');
    expect(() => selectRequirements({ tags: ['bonds'] })).toThrow(/unknown tag "bonds"/);
  });

  it('replays a run from its seed: the same run id and client order ids, whatever runs beside', async () => {
    // Client order ids cannot be used twice on one server, so the replay gets a fresh one.
    const fresh = await startSandboxTarget();
    try {
      const sent = async (runTarget: Target, seed: string, concurrency: number) => {
        const ids: string[] = [];
        const report = await runConformance(runTarget, {
          seed,
          concurrency,
          only: ['ORDER-CANCEL-LIVE', 'ORDER-EDIT-LIVE', 'AUTH-PATH-MISMATCH'],
          adapter: {
            async placeLiveOrder(context, fixture, market) {
              ids.push(fixture.clientOrderId);
              return defaultAdapter.placeLiveOrder(context, fixture, market);
            },
          },
        });
        expect(report.mustFailures).toEqual([]);
        return { runId: report.runId, seed: report.seed, ids: ids.sort() };
      };
      const first = await sent(target, 'replay-me', 1);
      const replayed = await sent(fresh.target, 'replay-me', 3);
      expect(replayed).toEqual(first);
      expect(first.seed).toBe('replay-me');
      expect(first.ids.every((id) => id.startsWith(`${first.runId}-`))).toBe(true);
      const other = await sent(fresh.target, 'another seed', 1);
      expect(other.runId).not.toBe(first.runId);
    } finally {
      await fresh.close();
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
        // A seed per fault, from its name: what generated input finds does not depend on the
        // draw, nor on where in the list a fault added later went.
        const report = await runConformance(proxy.target, {
          only: siblingRequirements(covers),
          seed: `fault-${name}`,
          ...(fault.testControl ? { adapter: sandboxTestControl } : {}),
        });
        const verdict = report.results.find((r) => r.id === covers)?.verdict;
        // A broken SHOULD is a WARN: what the conventions ask is caught all the same.
        const broken = catalogById.get(covers)?.level === 'SHOULD' ? 'WARN' : 'FAIL';
        (verdict === broken ? caught : missed).push(`${covers} (${name}): ${verdict}`);
        expect(verdict).toBe(broken);
        const failed = report.results
          .filter((r) => r.verdict === 'FAIL' || r.verdict === 'WARN')
          .map((r) => r.id);
        expect(failed.sort()).toEqual([covers, ...(fault.alsoFails ?? [])].sort());
      } finally {
        proxy.fault = undefined;
      }
    },
  );
});

describe('generated input', () => {
  it('finds a crash only some valid bodies cause, and shrinks it to the smallest such body', async () => {
    proxy.fault = crashWithoutTerms;
    try {
      const report = await runConformance(proxy.target, {
        only: ['INPUT-GENERATED-VALID'],
        seed: 'shrink',
        maxExamples: 20,
      });
      const result = report.results[0];
      expect(result).toMatchObject({ id: 'INPUT-GENERATED-VALID', verdict: 'FAIL' });
      const failing = result?.evidence.find((e) => e.outcome === 'fail');
      expect(failing?.message).toMatch(/^intentToTrade valid against its schema: answered 500/);
      expect(failing?.message).toMatch(
        /; reproduce with --seed shrink \(fast-check seed -?\d+, path [\d:]+\)$/,
      );
      // The required fields alone, each at its smallest.
      const body = JSON.parse(failing?.call?.requestBody ?? '{}');
      expect(Object.keys(body).sort()).toEqual(
        ['currency', 'quantity', 'session_id', 'side', 'symbol'].sort(),
      );
      expect(body).toMatchObject({
        currency: '',
        quantity: expect.stringMatching(/^\d$/),
        side: 'buy',
      });
      expect(failing?.call && curlOf(failing.call)).toContain(
        '/api/v1/transaction/intent_to_trade',
      );
    } finally {
      proxy.fault = undefined;
    }
  });

  it('sends the same bodies again from the same seed', async () => {
    let replays = 0;
    const bodiesOf = async (seed: string) => {
      const sent: string[] = [];
      proxy.fault = {
        name: 'records intent_to_trade bodies',
        covers: 'INPUT-GENERATED-VALID',
        request: (request) => {
          if (request.path.endsWith('/intent_to_trade'))
            sent.push(request.body.replace(/"session_id":"[^"]+"/, ''));
          return request;
        },
      };
      try {
        // A replay on the same server needs its own run id; the bodies come from the seed alone.
        const report = await runConformance(proxy.target, {
          only: ['INPUT-GENERATED-VALID'],
          seed,
          runId: `ck${(++replays).toString(16).padStart(8, '0')}`,
          maxExamples: 5,
        });
        expect(report.results[0]?.verdict).toBe('PASS');
      } finally {
        proxy.fault = undefined;
      }
      return sent;
    };
    const first = await bodiesOf('replay-a');
    // Five valid bodies and, for the invalid ones, up to five more.
    expect(first.length).toBeGreaterThanOrEqual(5);
    expect(await bodiesOf('replay-a')).toEqual(first);
    expect(await bodiesOf('replay-b')).not.toEqual(first);
  });
});

describe('the model-based profile', () => {
  it('finds a fault only a sequence shows, and reports the shortest sequence that shows it', async () => {
    proxy.fault = cancelAfterEditIgnored();
    try {
      const report = await runConformance(proxy.target, {
        only: ['MODEL-ORDER-SEQUENCES'],
        seed: 'model-shrink',
        maxExamples: 30,
      });
      const result = report.results[0];
      expect(result).toMatchObject({ id: 'MODEL-ORDER-SEQUENCES', verdict: 'FAIL' });
      const failing = result?.evidence.find((e) => e.outcome === 'fail');
      const sequence = /sequence found that breaks the state tables \([^)]*\): (.*?); /.exec(
        failing?.message ?? '',
      )?.[1];
      // How to run it again, in words, and none of fast-check's own replay comment.
      expect(failing?.message).not.toContain('/*');
      expect(failing?.message).toMatch(
        /; reproduce with --seed model-shrink \(fast-check seed -?\d+, path [\d:]+\)$/,
      );
      expect(sequence?.split(/,(?=[a-z_]+\()/)).toEqual([
        expect.stringMatching(/^place\(/),
        expect.stringMatching(/^edit\(#0/),
        expect.stringMatching(/^cancel\(#0/),
      ]);
      expect(failing?.message).toMatch(/is live .*the state tables give cancelled/);
      // The calls of the sequence, each a curl line: place, read back, edit, read back, cancel.
      expect(failing?.steps?.map((step) => step.operationId)).toEqual(
        expect.arrayContaining(['createOrder', 'getOrder', 'cancelOrder']),
      );
      expect(
        failing?.steps?.map((step) => step.operationId).some((id) => id.startsWith('editOrder')),
      ).toBe(true);
      expect(failing?.call && curlOf(failing.call)).toContain('/orders/');
    } finally {
      proxy.fault = undefined;
    }
  });
});

describe('withdrawals', () => {
  it('moves them through the sandbox test control, each row of the withdrawal table passing', async () => {
    const report = await runConformance(target, {
      profiles: ['withdrawals', 'oauth'],
      only: requirements.filter((r) => r.table === 'withdrawal').map((r) => r.id),
      adapter: sandboxTestControl,
    });
    expect(report.results.map((r) => `${r.id} ${r.verdict} ${r.message}`)).toEqual(
      report.results.map((r) => expect.stringMatching(new RegExp(`^${r.id} PASS`))),
    );
    expect(report.results).toHaveLength(6);
    // Nor does it leave a withdrawal holding funds, run after run: it moved some to processing,
    // and declines each.
    for (const path of ['/crypto_withdrawals?currency=BTC', '/withdrawals?currency=JPY']) {
      const signed = signFor({ tokenId: target.tokenId, path }, target.tokenSecret);
      const listed = await fetch(`${target.exchangeUrl}${path}`, {
        headers: { 'x-service-auth': signed },
      });
      const { models } = (await listed.json()) as { models: { state: string }[] };
      expect(models.map((w) => w.state)).toContain('declined');
      expect(models.filter((w) => w.state === 'processing' || w.state === 'pending')).toEqual([]);
    }
  });
});

describe('deposits', () => {
  it('credits one through the sandbox test control: listed, credited, in the ledger', async () => {
    const report = await runConformance(target, {
      only: ['DEPOSIT-CREDITS'],
      adapter: sandboxTestControl,
    });
    expect(report.results.map((r) => `${r.id} ${r.verdict} ${r.message}`)).toEqual([
      expect.stringMatching(/^DEPOSIT-CREDITS PASS/),
    ]);
    const skipped = await runConformance(target, { only: ['DEPOSIT-CREDITS'] });
    expect(skipped.results.map((r) => `${r.id} ${r.verdict}`)).toEqual(['DEPOSIT-CREDITS SKIP']);
  });
});

describe('trades at the mark price', () => {
  it('moves the mark through the sandbox test control: a stop loss fires, a long is liquidated, a resting order opens a second trade', async () => {
    const ids = ['TRADE-STOP-LOSS-AT-MARK', 'TRADE-LIQUIDATED-AT-MARK', 'TRADE-ORDER-EVERY-TRADE'];
    const report = await runConformance(target, { only: ids, adapter: sandboxTestControl });
    expect(report.results.map((r) => `${r.id} ${r.verdict} ${r.message}`)).toEqual(
      ids.map((id) => expect.stringMatching(new RegExp(`^${id} PASS`))),
    );
    const skipped = await runConformance(target, { only: ids });
    expect(skipped.results.map((r) => `${r.id} ${r.verdict}`)).toEqual(
      ids.map((id) => `${id} SKIP`),
    );
  });
});

describe('loans', () => {
  it('moves the clock and lends through the sandbox test control: a trade borrows and pays a day of interest, and only a lender chooses', async () => {
    const ids = [
      'LOAN-MARGIN-BORROWS',
      'LOAN-INTEREST-ACCRUES',
      'LOAN-BORROWER-CANNOT-CHOOSE',
      'LOAN-LENDER-CHOOSES',
      'LOAN-REPAID-CANNOT-CHOOSE',
      'RESPONSE-UPDATE-LOAN',
    ];
    const report = await runConformance(target, { only: ids, adapter: sandboxTestControl });
    expect(report.results.map((r) => `${r.id} ${r.verdict} ${r.message}`)).toEqual(
      ids.map((id) => expect.stringMatching(new RegExp(`^${id} PASS`))),
    );
  });

  it("borrows from another trader's bids and names its objects through the sandbox test control, and SKIPs without a second trader", async () => {
    const ids = [
      'LOAN-LOWEST-RATE-FIRST',
      'LOAN-CLOSED-BID-LENDS-NOTHING',
      'LOAN-OWN-BID-NOT-LENT',
      'LOAN-BID-CLOSED-WHILE-LENT',
      'LOAN-BORROWER-PAYS-LENDER',
      'AUTH-OTHER-USERS-OBJECTS',
    ];
    const report = await runConformance(target, { only: ids, adapter: sandboxTestControl });
    expect(report.results.map((r) => `${r.id} ${r.verdict} ${r.message}`)).toEqual(
      ids.map((id) => expect.stringMatching(new RegExp(`^${id} PASS`))),
    );
    const skipped = await runConformance(target, { only: ids });
    expect(skipped.results.map((r) => `${r.id} ${r.verdict} ${r.message}`)).toEqual(
      ids.map((id) => expect.stringMatching(new RegExp(`^${id} SKIP .*anotherTrader step`))),
    );
  });

  it("judges a quote's expiry by the server's clock, which a run before moved a day on", async () => {
    await sandboxTestControl.advanceClock?.({ target } as never, 86_400);
    const report = await runConformance(target, { only: ['VALUE-QE-EXPIRES-FROM-QUOTE'] });
    expect(report.results.map((r) => `${r.verdict} ${r.message}`)).toEqual([
      expect.stringMatching(/^PASS/),
    ]);
  });
});

describe('the transaction model', () => {
  it('ends transactions through the sandbox test control and holds every read to the table', async () => {
    const report = await runConformance(target, {
      only: ['MODEL-TRANSACTION-SEQUENCES'],
      seed: 'transactions',
      maxExamples: 15,
      adapter: sandboxTestControl,
    });
    expect(report.results[0]).toMatchObject({ verdict: 'PASS' });
    expect(report.results[0]?.evidence[0]?.message).not.toContain('without ending transactions');
  });

  it('finds a fill that is lost, and shrinks to the shortest sequence that shows it', async () => {
    proxy.fault = fillLost;
    try {
      const report = await runConformance(proxy.target, {
        only: ['MODEL-TRANSACTION-SEQUENCES'],
        seed: 'transactions-fault',
        maxExamples: 30,
        adapter: sandboxTestControl,
      });
      const failing = report.results[0]?.evidence.find((e) => e.outcome === 'fail');
      expect(report.results[0]?.verdict).toBe('FAIL');
      const sequence = /breaks the transaction table \([^)]*\): (.*?); /.exec(
        failing?.message ?? '',
      )?.[1];
      expect(failing?.message).not.toContain('replayPath');
      expect(failing?.message).toMatch(
        /; reproduce with --seed transactions-fault \(fast-check seed -?\d+, path [\d:]+\)$/,
      );
      expect(sequence?.split(/,(?=[a-z_]+\()/)).toEqual([
        expect.stringMatching(/^intent_to_trade\(/),
        expect.stringMatching(/^end\(#0, FILLED/),
        'status(#0)',
      ]);
    } finally {
      proxy.fault = undefined;
    }
  });
});

describeConformance('the vitest helper', () => target, {
  profiles: ['loan-book', 'oauth'],
  // Denying an OAuth request, and letting one expire, go through the sandbox's test control,
  // so nothing is skipped.
  adapter: {
    denyOAuthRequest: sandboxTestControl.denyOAuthRequest,
    advanceClock: sandboxTestControl.advanceClock,
  },
});

describe('the CLI against the sandbox', () => {
  // The lines a failure prints are pasted into bash, which runs the command from source.
  const execute = promisify(execFile);
  const cli = fileURLToPath(new URL('../cli/cli.ts', import.meta.url));
  const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
  const exchangeConformanceRun = async (runTarget: Target, ...args: string[]) =>
    exchangeConformance([
      'run',
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
      ...args,
    ]);
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
    const { code, stdout } = await exchangeConformanceRun(
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
    expect(junit).toMatch(
      /<testcase name="STATUS-200-SUCCESS" classname="orders.MUST" time="\d+\.\d{3}">/,
    );
    checkJunit(parseXml(junit));
    const json = JSON.parse(await readFile(files.json, 'utf8'));
    expect(json).toMatchObject({ schemaVersion: 1, mustFailures: [], summary: { FAIL: 0 } });
    expect(await readFile(files.html, 'utf8')).toContain('<th>loan-book</th>');
  });

  it("passes what the sandbox's test control moves, with the adapter the package ships", async () => {
    const ids = [
      'LOAN-INTEREST-ACCRUES',
      'LOAN-INTEREST-PAID-TO-LENDER',
      'TRADE-LIQUIDATED-AT-MARK',
      'TRADE-MARGIN-KEPT-AT-MARK',
      'TRADE-OPEN-PNL-AT-MARK',
      'TRADE-ORDER-EVERY-TRADE',
      'TRADE-STOP-LOSS-AT-MARK',
      'WITHDRAWAL-PROCESSED',
    ];
    const { code, stdout } = await exchangeConformanceRun(
      target,
      '--adapter',
      '@exchange-kit/conformance/sandbox-test-control',
      ...ids.flatMap((id) => ['--only', id]),
    );
    expect(code).toBe(0);
    for (const id of ids) expect(stdout).toMatch(new RegExp(`^PASS {3}${id}`, 'm'));
  });

  it('exits 2 with one line naming the refused credential when the token secret is wrong', async () => {
    const { code, stdout, stderr } = await exchangeConformanceRun({
      ...target,
      tokenSecret: `${target.tokenSecret}-not`,
    });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr?.trim().split('\n')).toEqual([
      `exchange-conformance: the server refused the API token ${target.tokenId} (GET /orders answered 401 "API Authentication failed"): check --token-id and the token secret`,
    ]);
  });

  it('prints curl lines for a failure and each read-back that reproduce it when pasted into bash', async () => {
    proxy.fault = faults.find((fault) => fault.covers === 'ORDER-CANCEL-LIVE');
    let printed: string;
    try {
      const { code, stdout } = await exchangeConformanceRun(
        proxy.target,
        '--only',
        'ORDER-CANCEL-LIVE',
      );
      expect(code).toBe(1);
      printed = stdout;
    } finally {
      proxy.fault = undefined;
    }
    expect(printed).not.toContain(target.tokenSecret);
    // Each curl command runs from its line to the first line that does not end in a backslash.
    const curls: string[] = [];
    let current: string[] | undefined;
    for (const line of printed.split('\n').map((text) => text.trim())) {
      if (line.startsWith('curl -i ')) current = [];
      if (!current) continue;
      current.push(line.replace(/\\$/, ''));
      if (!line.endsWith('\\')) {
        curls.push(current.join(' '));
        current = undefined;
      }
    }
    expect(curls).toHaveLength(2);
    expect(curls[0]).toMatch(/-X PUT '.*\/orders\/\d+\/cancel'/);
    expect(curls[1]).toMatch(/-X GET '.*\/orders\/\d+'/);
    expect(printed).toMatch(/read back 1: GET \/orders\/\d+ answered 200/);
    for (const curl of curls)
      expect(curl).toContain(
        `-H "X-Service-Auth: $(npx exchange-conformance sign --token-id '${target.tokenId}' --path '/orders/`,
      );

    proxy.fault = faults.find((fault) => fault.covers === 'ORDER-CANCEL-LIVE');
    try {
      // As pasted by someone with the secret in their environment; npx stands for the
      // published command, which is this CLI run from source.
      const shell = (curl: string) =>
        execute(
          'bash',
          ['-c', `npx() { shift; "$TSX" --conditions=@exchange-kit/source "$CLI" "$@"; }\n${curl}`],
          {
            env: {
              ...process.env,
              EXCHANGE_CONFORMANCE_TOKEN_SECRET: target.tokenSecret,
              TSX: tsx,
              CLI: cli,
            },
          },
        );
      const cancelled = await shell(curls[0] as string);
      expect(cancelled.stdout).toMatch(/^HTTP\/1\.1 200/);
      expect(cancelled.stdout).toContain('"status":"cancelled"');
      const readBack = await shell(curls[1] as string);
      expect(readBack.stdout).toMatch(/^HTTP\/1\.1 200/);
      expect(readBack.stdout).toContain('"status":"live"');
    } finally {
      proxy.fault = undefined;
    }
  });

  it('prints a session-signed call signed anew, and the pasted line is accepted', async () => {
    const caller = new SpecClient(target);
    const created = await caller.call('createSession', {
      body: { ...example('createSession', 'minimal'), public_api_key: target.publicApiKey },
    });
    const payload = (created.json as { payload: { session_id: string; session_secret: string } })
      .payload;
    const session = { sessionId: payload.session_id, sessionSecret: payload.session_secret };
    const auth = { kind: 'session' as const, session };
    const trade = await caller.call('intentToTrade', {
      body: { ...example('intentToTrade', 'minimal'), session_id: session.sessionId },
      auth,
    });
    const transactionId = (trade.json as { payload: { transaction_id: string } }).payload
      .transaction_id;
    const read = await caller.call('getTransactionStatus', {
      path: { transaction_id: transactionId },
      auth,
    });
    expect(read.status).toBe(200);
    const curl = curlOf(read);
    expect(curl).toContain(
      `-H "Authorization: Bearer $(EXCHANGE_CONFORMANCE_SESSION_SECRET='${session.sessionSecret}' npx exchange-conformance sign --session-id '${session.sessionId}' --path '/api/v1/transaction/status/${transactionId}')"`,
    );
    // Pasted twice: each signs a fresh nonce, so neither is refused as a replay.
    for (const _ of [1, 2]) {
      const { stdout } = await execute(
        'bash',
        ['-c', `npx() { shift; "$TSX" --conditions=@exchange-kit/source "$CLI" "$@"; }\n${curl}`],
        { env: { ...process.env, TSX: tsx, CLI: cli } },
      );
      expect(stdout).toMatch(/^HTTP\/1\.1 200/);
      expect(stdout).toContain(transactionId);
    }
  });

  it('prints a replayed JWT as it was sent, since only the same JWT reproduces a replay', async () => {
    proxy.fault = faults.find((fault) => fault.covers === 'AUTH-NONCE-REPLAYED');
    try {
      const report = await runConformance(proxy.target, { only: ['AUTH-NONCE-REPLAYED'] });
      const failure = report.results[0]?.evidence[0];
      expect(failure?.outcome).toBe('fail');
      const jwt = failure?.call?.requestHeaders['X-Service-Auth'] as string;
      const curl = curlOf(failure?.call as RecordedCall);
      expect(curl).toContain(`-H 'X-Service-Auth: ${jwt}'`);
      // Pasted again, the same JWT gets past the faulty server's authentication (the order
      // itself was cancelled by the run's cleanup), and not past the sandbox's own.
      const faulty = await execute('bash', ['-c', curl]);
      expect(faulty.stdout).toMatch(/^HTTP\/1\.1 (?!401)\d{3}/);
      proxy.fault = undefined;
      const sound = await execute('bash', ['-c', curl]);
      expect(sound.stdout).toMatch(/^HTTP\/1\.1 401/);
    } finally {
      proxy.fault = undefined;
    }
  });

  it('loads an adapter module given with --adapter', async () => {
    const module = join(folder, 'adapter.mjs');
    await writeFile(module, 'export default { placeConditionalOrders: null };\n');
    const { code, stdout } = await exchangeConformanceRun(
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
      const { code, stdout } = await exchangeConformanceRun(proxy.target, '--profile', 'loan-book');
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
      const known = await exchangeConformanceRun(
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

describe('the websocket events', () => {
  const eventIds = catalog.filter((r) => r.kind === 'events').map((r) => r.id);

  it('SKIPs every events requirement, with the reason, where no events endpoint answers', async () => {
    const elsewhere = new URL('/app/NoSuchApp', target.exchangeUrl);
    elsewhere.protocol = 'ws:';
    const report = await runConformance(
      { ...target, eventsUrl: elsewhere.href },
      { only: eventIds },
    );
    expect(report.results.map((r) => [r.id, r.verdict])).toEqual(
      eventIds.map((id) => [id, 'SKIP']),
    );
    for (const result of report.results)
      expect(result.message).toContain(`no events endpoint at ${elsewhere.href} (answered 404`);
    expect(report.target.eventsUrl).toBe(elsewhere.href);
  });
});

describe('a caller whose ledger outgrows one page', () => {
  it('still has its balances explained: a full page is compared within its own span', async () => {
    const path = '/user/context';
    const context = await fetch(`${target.exchangeUrl}${path}`, {
      headers: { 'x-service-auth': signFor({ tokenId: target.tokenId, path }, target.tokenSecret) },
    });
    const { user_id } = (await context.json()) as { user_id: number };
    // A fill and its fee, then deposits newer than it: the page of the 1,000 newest entries
    // leaves that fee out, which the trade_fee entries still list.
    await runConformance(target, { only: ['LEDGER-EXPLAINS-BALANCE'] });
    for (let n = 0; n < 1001; n++) {
      const credited = await fetch(`${target.exchangeUrl}/test/deposits`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user_id, currency: 'JPY', amount: '1' }),
      });
      expect(credited.status).toBe(200);
    }
    const report = await runConformance(target, { only: ['LEDGER-EXPLAINS-BALANCE'] });
    expect(report.results.map((r) => `${r.id} ${r.verdict} ${r.message}`)).toEqual([
      expect.stringMatching(/^LEDGER-EXPLAINS-BALANCE PASS/),
    ]);
  });
});
