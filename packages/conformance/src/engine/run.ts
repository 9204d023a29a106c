import { createHash, randomBytes } from 'node:crypto';
import { authScenarios } from '../scenarios/auth.js';
import { borrowingScenarios } from '../scenarios/borrowing.js';
import { depositScenarios } from '../scenarios/deposits.js';
import { eventScenarios } from '../scenarios/events.js';
import { eventFillScenarios } from '../scenarios/events-fills.js';
import { executionScenarios } from '../scenarios/executions.js';
import { feeScenarios } from '../scenarios/fees.js';
import { generatedScenarios } from '../scenarios/generated.js';
import { inputScenarios } from '../scenarios/input.js';
import { inputReadingScenarios } from '../scenarios/input-reading.js';
import { ledgerScenarios } from '../scenarios/ledger.js';
import { lenderScenarios } from '../scenarios/lenders.js';
import { lendingScenarios } from '../scenarios/lending.js';
import { loanBidScenarios } from '../scenarios/loan-bids.js';
import { modelScenarios } from '../scenarios/model.js';
import { oauthStateScenarios } from '../scenarios/oauth-states.js';
import { orderRefusalScenarios } from '../scenarios/order-refusals.js';
import { orderTradeScenarios } from '../scenarios/order-trades.js';
import { orderScenarios } from '../scenarios/orders.js';
import { ordersListedScenarios } from '../scenarios/orders-listed.js';
import { othersObjectsScenarios } from '../scenarios/others-objects.js';
import { partnerScenarios } from '../scenarios/partner.js';
import { readScenarios } from '../scenarios/reads.js';
import type { Scenario } from '../scenarios/scenario.js';
import { tradeScenarios } from '../scenarios/trades.js';
import { tradesAtMarkScenarios } from '../scenarios/trades-at-mark.js';
import { tradesBothSidesScenarios } from '../scenarios/trades-both-sides.js';
import { tradingAccountScenarios } from '../scenarios/trading-accounts.js';
import { transactionModelScenarios } from '../scenarios/transaction-model.js';
import { withdrawalScenarios } from '../scenarios/withdrawals.js';
import { RunAbortedError } from './aborted.js';
import { type ConformanceAdapter, resolveAdapter } from './adapter.js';
import { type ConformanceRequirement, catalog, catalogById, type Profile } from './catalog.js';
import { Evidences, SpecClient } from './context.js';
import type { ExpectedFailure } from './expected-failures.js';
import { cleanUp, runFixtures } from './fixtures.js';
import { type RequirementResult, responseEvidence, resultOf, valueEvidence } from './judging.js';
import { SetupError } from './outcome.js';
import { checkTarget, preflight } from './preflight.js';
import { runScenarios } from './scheduling.js';
import { type RequirementSelection, scenariosToRun, selectRequirements } from './selection.js';
import { type ConformanceReport, summarise } from './summary.js';
import type { Target } from './target.js';

export { CredentialsRefusedError, RunAbortedError } from './aborted.js';
export { type RequirementResult, type Verdict, verdicts } from './judging.js';
export { selectRequirements } from './selection.js';
export type { ConformanceReport } from './summary.js';

export interface RunOptions extends RequirementSelection {
  /** Scenarios run side by side, at most this many at once; 1 by default. */
  concurrency?: number;
  /** Derives the run id and every generated value, so a run can be replayed; random by default. */
  seed?: string;
  adapter?: ConformanceAdapter;
  expectedFailures?: ExpectedFailure[];
  /** Called with each verdict as soon as it is known. */
  onResult?: (result: RequirementResult) => void;
  /** Prefix of every client order id the run makes; derived from the seed by default. */
  runId?: string;
  /**
   * How many generated request bodies (per operation) and command sequences a generated check
   * tries; 10 by default. A failure is then shrunk to the smallest one that still fails.
   */
  maxExamples?: number;
  now?: () => Date;
}

export const scenarios: Scenario[] = [
  ...readScenarios,
  ...oauthStateScenarios,
  ...orderScenarios,
  ...executionScenarios,
  ...tradeScenarios,
  ...ledgerScenarios,
  ...partnerScenarios,
  ...authScenarios,
  ...inputScenarios,
  ...inputReadingScenarios,
  ...generatedScenarios,
  ...modelScenarios,
  ...transactionModelScenarios,
  ...withdrawalScenarios,
  ...depositScenarios,
  ...eventScenarios,
  ...feeScenarios,
  ...tradesAtMarkScenarios,
  ...tradesBothSidesScenarios,
  ...orderTradeScenarios,
  ...loanBidScenarios,
  ...borrowingScenarios,
  ...lendingScenarios,
  ...lenderScenarios,
  ...othersObjectsScenarios,
  ...ordersListedScenarios,
  ...orderRefusalScenarios,
  ...eventFillScenarios,
  ...tradingAccountScenarios,
];

/**
 * The requirements checked by the same scenarios as `id`, which share its fixtures: a fault
 * that breaks `id` can be shown to leave them alone. The status-table requirements are left
 * out, since every scenario notes statuses for them.
 */
export function siblingRequirements(id: string): string[] {
  const siblings = new Set<string>([id]);
  // A value requirement is judged on the answers of its operations, as are the others of them.
  const value = catalogById.get(id);
  if (value?.kind === 'value') {
    for (const other of catalog)
      if (other.kind === 'value' && other.operations.some((op) => value.operations.includes(op)))
        siblings.add(other.id);
    return [...siblings];
  }
  for (const scenario of scenarios) {
    if (!scenario.covers.includes(id)) continue;
    for (const covered of scenario.covers)
      if (!covered.startsWith('STATUS-')) siblings.add(covered);
  }
  return [...siblings];
}

/**
 * Runs the conformance suite against a server: every selected requirement as a deterministic
 * scenario over HTTP, each response validated against the specs. Throws RunAbortedError when
 * the run cannot proceed at all. Its steps, in order: select, check the target, make the
 * context and fixtures, schedule the scenarios, judge, clean up and summarise.
 */
export async function runConformance(
  target: Target,
  options: RunOptions = {},
): Promise<ConformanceReport> {
  const now = options.now ?? (() => new Date());
  const started = now();
  const startedMs = Date.now();
  const { selected, profiles } = selectRequirements(options);
  const expectedIds = new Map((options.expectedFailures ?? []).map((entry) => [entry.id, entry]));
  if (options.seed !== undefined && options.seed.trim() === '')
    throw new RunAbortedError(
      'the seed is empty; give one with characters, or none for a fresh one',
    );
  await checkReachable(target, profiles);

  const seed = options.seed ?? randomBytes(6).toString('hex');
  const runId = options.runId ?? `ck${createHash('sha256').update(seed).digest('hex').slice(0, 8)}`;
  const caller = new SpecClient(target);
  const evidence = new Evidences();
  caller.onCall.push((call) => evidence.record(responseEvidence(call)));
  const fixtures = runFixtures({
    target,
    runId,
    seed,
    maxExamples: Math.max(1, Math.floor(options.maxExamples ?? 10)),
    startedAt: startedMs,
    profiles,
    caller,
    evidence,
    adapter: resolveAdapter(options.adapter),
  });

  const results = new Map<string, RequirementResult>();
  /**
   * A requirement a scenario judged broken that shares a profile with `requirement`: a failed
   * check may stop the calls after it. One whose checks call `requirement`'s operation is
   * named first, else the first. Response and value verdicts stop nothing, and an expected
   * failure (XFAIL) was accepted by the caller, so neither is blamed.
   */
  const failedBefore = (requirement: ConformanceRequirement) => {
    const broken = [...results.values()].filter(
      (result) =>
        ['FAIL', 'WARN', 'ERROR'].includes(result.verdict) &&
        result.kind !== 'response' &&
        result.kind !== 'value' &&
        result.profiles.some((profile) => requirement.profiles.includes(profile)),
    );
    const [operationId] = requirement.operations;
    const calling = broken.find((result) =>
      selected.some((r) => r.id === result.id && r.operations.includes(operationId as string)),
    );
    return calling ?? broken[0];
  };
  const judge = (requirement: ConformanceRequirement, scenariosMs = 0) => {
    const expected: ExpectedFailure | undefined = expectedIds.get(requirement.id);
    const result = resultOf(
      requirement,
      evidence.all,
      expected,
      started,
      caller.calls,
      scenariosMs,
      failedBefore(requirement),
    );
    results.set(requirement.id, result);
    options.onResult?.(result);
  };
  await runScenarios(scenariosToRun(scenarios, selected, profiles, evidence), {
    concurrency: options.concurrency ?? 1,
    indexOf: (scenario) => scenarios.indexOf(scenario),
    context: fixtures.context,
    evidence,
    running: fixtures.running,
    covered: (id, scenariosMs) => {
      const requirement = selected.find((r) => r.id === id);
      if (requirement && requirement.kind !== 'response') judge(requirement, scenariosMs);
    },
  });

  const leftovers = await cleanUp(fixtures.context);
  for (const requirement of selected)
    if (requirement.kind === 'value')
      for (const item of valueEvidence(requirement, caller, target)) evidence.record(item);
  for (const requirement of selected) if (!results.has(requirement.id)) judge(requirement);

  return summarise({
    runId,
    seed,
    stateless: fixtures.stateless(),
    started,
    startedMs,
    target,
    profiles,
    ordered: selected.map((requirement) => results.get(requirement.id) as RequirementResult),
    leftovers,
    calls: caller.calls.length,
  });
}

/** Stops the run before anything is judged when a base URL or the credentials do not answer. */
async function checkReachable(target: Target, profiles: ReadonlySet<Profile>): Promise<void> {
  await preflight(target, profiles);
  try {
    await checkTarget(target, profiles);
  } catch (error) {
    // A check that could not even be sent (a timeout) stops the run the same way, with its why.
    if (error instanceof SetupError)
      throw new RunAbortedError(`checking the credentials: ${error.message}`);
    throw error;
  }
}
