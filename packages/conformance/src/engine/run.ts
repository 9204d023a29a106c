import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';
import { authScenarios } from '../scenarios/auth.js';
import { executionScenarios } from '../scenarios/executions.js';
import { generatedScenarios } from '../scenarios/generated.js';
import { inputScenarios } from '../scenarios/input.js';
import { ledgerScenarios } from '../scenarios/ledger.js';
import { modelScenarios } from '../scenarios/model.js';
import { oauthStateScenarios } from '../scenarios/oauth-states.js';
import { orderScenarios } from '../scenarios/orders.js';
import { partnerScenarios } from '../scenarios/partner.js';
import { readScenarios } from '../scenarios/reads.js';
import type { Scenario, ScenarioContext } from '../scenarios/scenario.js';
import { tradeScenarios } from '../scenarios/trades.js';
import { transactionModelScenarios } from '../scenarios/transaction-model.js';
import { withdrawalScenarios } from '../scenarios/withdrawals.js';
import { RunAbortedError } from './aborted.js';
import {
  type AdapterContext,
  type ConformanceAdapter,
  type Market,
  type OrderRef,
  resolveAdapter,
} from './adapter.js';
import {
  type ConformanceRequirement,
  catalog,
  catalogById,
  type Profile,
  profileNames,
  responseRequirementId,
} from './catalog.js';
import { Evidences, evidenceOf, SpecClient } from './context.js';
import { type ExpectedFailure, isCurrent } from './expected-failures.js';
import { type Evidence, PreconditionError, type RecordedCall, SetupError } from './outcome.js';
import { checkTarget, preflight } from './preflight.js';
import { operation } from './spec.js';
import type { Target } from './target.js';
import { judgeValues, valueContextOf } from './values.js';

export { CredentialsRefusedError, RunAbortedError } from './aborted.js';

export type Verdict = 'PASS' | 'FAIL' | 'WARN' | 'SKIP' | 'ERROR' | 'XFAIL' | 'XPASS';

export const verdicts: readonly Verdict[] = [
  'PASS',
  'FAIL',
  'WARN',
  'SKIP',
  'ERROR',
  'XFAIL',
  'XPASS',
];

/** The verdict on one requirement, with the evidence behind it. */
export interface RequirementResult {
  id: string;
  level: ConformanceRequirement['level'];
  kind: ConformanceRequirement['kind'];
  profiles: Profile[];
  origin: string;
  summary: string;
  /** For a statement about values: the sentence of the description (or conventions) it covers. */
  sentence?: string;
  verdict: Verdict;
  /** One line: why this verdict. */
  message: string;
  /** The failing (or erroring, or skipping) evidence first, then at most a few passes. */
  evidence: Evidence[];
  /** Set when an expected-failures entry names the requirement. */
  expectedFailure?: ExpectedFailure & { expired: boolean };
  /** Time spent on it: its scenarios, or for a response requirement its operation's calls. */
  durationMs: number;
}

export interface ConformanceReport {
  /** Version of this report's shape; see the README. */
  schemaVersion: 1;
  runId: string;
  /** Replays the run: the same run id, client order ids and generated values (`--seed`). */
  seed: string;
  /** Set when the server answered as if it kept no state; said once here, not per requirement. */
  stateless?: string;
  startedAt: string;
  durationMs: number;
  target: { exchangeUrl: string; partnerUrl: string; tokenId: string; publicApiKey: string };
  profiles: Profile[];
  summary: Record<Verdict, number>;
  /** MUST requirements that failed or errored: the run fails when there is one. */
  mustFailures: string[];
  results: RequirementResult[];
  /** Orders the run could not cancel at the end. */
  leftovers: string[];
  /** HTTP calls the run made (the exchange limits a token to 600 in 5 minutes). */
  calls: number;
}

export interface RunOptions {
  /** Profiles to run; all when empty or absent. */
  profiles?: Profile[];
  /** Only these requirement ids. */
  only?: string[];
  /** Only requirements about these operations (operation ids). */
  operations?: string[];
  /** Only requirements about operations carrying one of these spec tags. */
  tags?: string[];
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

const scenarios: Scenario[] = [
  ...readScenarios,
  ...oauthStateScenarios,
  ...orderScenarios,
  ...executionScenarios,
  ...tradeScenarios,
  ...ledgerScenarios,
  ...partnerScenarios,
  ...authScenarios,
  ...inputScenarios,
  ...generatedScenarios,
  ...modelScenarios,
  ...transactionModelScenarios,
  ...withdrawalScenarios,
];

/** The requirements a run with these options gives verdicts on, and its profiles; throws RunAbortedError on unknown names. */
export function selectRequirements(
  options: Pick<RunOptions, 'profiles' | 'only' | 'operations' | 'tags'>,
): {
  selected: ConformanceRequirement[];
  profiles: Set<Profile>;
} {
  const profiles = new Set<Profile>(options.profiles?.length ? options.profiles : profileNames);
  for (const profile of profiles) {
    if (!profileNames.includes(profile)) {
      throw new RunAbortedError(
        `unknown profile "${profile}"; the profiles are ${profileNames.join(', ')}`,
      );
    }
  }
  const only = new Set(options.only ?? []);
  for (const id of only) {
    if (!catalog.some((requirement) => requirement.id === id)) {
      throw new RunAbortedError(
        `unknown requirement "${id}"; \`exchange-conformance list\` shows them all`,
      );
    }
  }
  const operationIds = new Set(options.operations ?? []);
  for (const id of operationIds) {
    if (!catalog.some((requirement) => requirement.operations.includes(id))) {
      throw new RunAbortedError(
        `unknown operation "${id}"; give an operationId of the specs, as \`exchange-conformance list\` shows them`,
      );
    }
  }
  const tags = new Set(options.tags ?? []);
  const tagsOf = (requirement: ConformanceRequirement) =>
    requirement.operations.flatMap((id) => operation(id).tags);
  for (const tag of tags) {
    if (!catalog.some((requirement) => tagsOf(requirement).includes(tag))) {
      const known = [...new Set(catalog.flatMap(tagsOf))].sort();
      throw new RunAbortedError(`unknown tag "${tag}"; the spec tags are ${known.join(', ')}`);
    }
  }
  const selected = catalog.filter(
    (requirement) =>
      requirement.profiles.some((profile) => profiles.has(profile)) &&
      (only.size === 0 || only.has(requirement.id)) &&
      (operationIds.size === 0 || requirement.operations.some((id) => operationIds.has(id))) &&
      (tags.size === 0 || tagsOf(requirement).some((tag) => tags.has(tag))),
  );
  return { selected, profiles };
}

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

function scenarioRuns(
  scenario: Scenario,
  selected: Set<string>,
  responseProfiles: Set<Profile>,
  profiles: Set<Profile>,
): boolean {
  if (!profiles.has(scenario.profile)) return false;
  if (scenario.requires?.some((profile) => !profiles.has(profile))) return false;
  return scenario.covers.some((id) => selected.has(id)) || responseProfiles.has(scenario.profile);
}

function responseEvidence(call: RecordedCall): Evidence {
  const requirementId = responseRequirementId(call.operationId);
  if (call.violations.length === 0) {
    return {
      requirementId,
      outcome: 'pass',
      message: `${call.method} ${new URL(call.url).pathname} ${call.status} matches the spec`,
    };
  }
  return {
    requirementId,
    outcome: 'fail',
    message: `${call.method} ${new URL(call.url).pathname} ${call.status}: ${call.violations.map((v) => `${v.pointer || '(body)'} ${v.message}`).join('; ')}`,
    received: call.responseText.slice(0, 500),
    documented: call.violations
      .map(
        (v) =>
          `${v.pointer || '(body)'}: ${v.message}${v.specPath ? ` (${decodeURIComponent(v.specPath)})` : ''}`,
      )
      .join('\n'),
    call,
  };
}

/** The evidence about a value requirement: one item per successful answer of its operations. */
function valueEvidence(
  requirement: ConformanceRequirement,
  caller: SpecClient,
  target: Target,
): Evidence[] {
  const found: Evidence[] = [];
  for (const call of caller.calls) {
    if (!requirement.operations.includes(call.operationId)) continue;
    if (call.status < 200 || call.status >= 300) continue;
    const baseUrl =
      operation(call.operationId).api === 'exchange' ? target.exchangeUrl : target.partnerUrl;
    const finding = judgeValues(
      requirement.checks ?? [],
      call.json,
      call.requestBody,
      valueContextOf(call, caller.calls, baseUrl),
    );
    if (finding.checked === 0) continue;
    const where = `${call.method} ${new URL(call.url).pathname} ${call.status}`;
    found.push(
      finding.problems.length === 0
        ? {
            requirementId: requirement.id,
            outcome: 'pass',
            message: `${where}: ${finding.checked} value${finding.checked === 1 ? '' : 's'} as described`,
          }
        : {
            requirementId: requirement.id,
            outcome: 'fail',
            message: `${where}: ${finding.problems.join('; ')}`,
            received: finding.problems.join('\n'),
            documented: `${requirement.summary}\n"${requirement.sentence ?? ''}"`,
            call,
          },
    );
  }
  return found;
}

function judge(
  requirement: ConformanceRequirement,
  evidence: Evidence[],
  expected: ExpectedFailure | undefined,
  now: Date,
  durationMs: number,
): RequirementResult {
  const failing = evidence.filter((e) => e.outcome === 'fail');
  const erroring = evidence.filter((e) => e.outcome === 'error');
  const skipping = evidence.filter((e) => e.outcome === 'skip');
  const passing = evidence.filter((e) => e.outcome === 'pass');
  let verdict: Verdict;
  let message: string;
  const precondition = erroring.find((e) => e.precondition);
  if (precondition) {
    // What was checked without its precondition proves nothing either way.
    verdict = 'ERROR';
    message = precondition.message;
  } else if (failing.length > 0) {
    verdict = requirement.level === 'MUST' ? 'FAIL' : 'WARN';
    message = failing[0]?.message ?? '';
  } else if (erroring.length > 0) {
    verdict = 'ERROR';
    message = erroring[0]?.message ?? '';
  } else if (passing.length > 0) {
    verdict = 'PASS';
    message = `${passing.length} check${passing.length === 1 ? '' : 's'} passed${skipping.length ? `; skipped: ${skipping[0]?.message}` : ''}`;
  } else {
    verdict = 'SKIP';
    message = skipping[0]?.message ?? 'no scenario of the selected profiles exercised it';
  }
  const result: RequirementResult = {
    id: requirement.id,
    level: requirement.level,
    kind: requirement.kind,
    profiles: requirement.profiles,
    origin: requirement.origin,
    summary: requirement.summary,
    ...(requirement.sentence ? { sentence: requirement.sentence } : {}),
    verdict,
    message,
    evidence: precondition
      ? [precondition]
      : [...failing, ...erroring, ...skipping, ...passing.slice(0, 3)],
    durationMs: Math.round(durationMs),
  };
  if (expected) {
    const expired = !isCurrent(expected, now);
    result.expectedFailure = { ...expected, expired };
    if (!expired && (verdict === 'FAIL' || verdict === 'WARN')) {
      result.verdict = 'XFAIL';
      result.message = `expected failure (${expected.reason}): ${message}`;
    } else if (!expired && verdict === 'PASS') {
      result.verdict = 'XPASS';
      result.message = `expected to fail (${expected.reason}) but passed: remove it from the expected-failures file`;
    } else if (expired && (verdict === 'FAIL' || verdict === 'WARN')) {
      result.message = `${message} (its expected-failures entry expired on ${expected.expires})`;
    }
  }
  return result;
}

/**
 * Runs the conformance suite against a server: every selected requirement as a deterministic
 * scenario over HTTP, each response validated against the specs. Throws RunAbortedError when
 * the run cannot proceed at all.
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
  await preflight(target, profiles);
  try {
    await checkTarget(target, profiles);
  } catch (error) {
    // A check that could not even be sent (a timeout) stops the run the same way, with its why.
    if (error instanceof SetupError)
      throw new RunAbortedError(`checking the credentials: ${error.message}`);
    throw error;
  }

  const seed = options.seed ?? randomBytes(6).toString('hex');
  const runId = options.runId ?? `ck${createHash('sha256').update(seed).digest('hex').slice(0, 8)}`;
  const caller = new SpecClient(target);
  const evidence = new Evidences();
  caller.onCall.push((call) => evidence.record(responseEvidence(call)));
  const adapter = resolveAdapter(options.adapter);
  const adapterContext: AdapterContext = {
    target,
    runId,
    call: (operationId, callOptions) => caller.call(operationId, callOptions),
  };
  // Client order ids count per scenario, so a replay with the same seed gives each scenario
  // the same ids whatever ran beside it.
  const running = new AsyncLocalStorage<{ index: number; count: number; checked: Set<string> }>();
  // What each scenario gave evidence about, apart from the scenarios running beside it.
  evidence.listeners.add((item) => running.getStore()?.checked.add(item.requirementId));
  let outside = 0;
  let market: Promise<Market> | undefined;
  const created: OrderRef[] = [];
  let stateless: string | undefined;
  const noState = (reason: string): PreconditionError => {
    stateless ??= `the server does not seem to keep state: ${reason}`;
    return new PreconditionError(`precondition does not hold: ${reason}`);
  };
  let firstReadBack: Promise<void> | undefined;
  // What the run made, by kind and id, with the name it was made under.
  const made = new Map<string, string>();
  const maxExamples = Math.max(1, Math.floor(options.maxExamples ?? 10));
  const context: ScenarioContext = {
    target,
    runId,
    seed,
    maxExamples,
    startedAt: startedMs,
    profiles,
    caller,
    evidence,
    adapter,
    adapterContext,
    created,
    market: () => {
      market ??= adapter.discoverMarket(adapterContext);
      return market;
    },
    clientOrderId: () => {
      const scenario = running.getStore();
      if (!scenario) return `${runId}-${++outside}`;
      return `${runId}-${scenario.index}-${++scenario.count}`;
    },
    distinct(kind, id, name) {
      const key = `${kind} ${String(id)}`;
      const earlier = made.get(key);
      if (earlier === undefined) {
        made.set(key, name);
        return;
      }
      throw noState(`${name} was given id ${String(id)}, the id of ${earlier} made before it`);
    },
    async liveOrder(fixture) {
      const current = await context.market();
      const order = await adapter.placeLiveOrder(
        adapterContext,
        {
          product: current.primary,
          side: 'buy',
          tradingType: 'spot',
          ...fixture,
          clientOrderId: context.clientOrderId(),
        },
        current,
      );
      created.push(order);
      context.distinct('order', order.id, `order ${order.clientOrderId ?? '?'}`);
      // The first order is read back once: a server that forgets what it made fails every
      // read-back, and says so better here than in each of them.
      firstReadBack ??= (async () => {
        const read = await caller.call('getOrder', { path: { order_id: String(order.id) } });
        if (read.status === 404) {
          throw noState(
            `order ${order.id}, just created, cannot be read back (GET /orders/${order.id} answered 404)`,
          );
        }
      })();
      await firstReadBack;
      return order;
    },
  };

  const selectedIds = new Set(selected.map((requirement) => requirement.id));
  // Response and value requirements are judged on whatever the scenarios of their profiles call.
  const responseProfiles = new Set(
    selected.filter((r) => r.kind === 'response' || r.kind === 'value').flatMap((r) => r.profiles),
  );
  const toRun = scenarios.filter((scenario) =>
    scenarioRuns(scenario, selectedIds, responseProfiles, profiles),
  );
  // A scenario left out for want of the profile its fixtures need says so on what it covers.
  for (const scenario of scenarios) {
    const lacking = (scenario.requires ?? []).filter((profile) => !profiles.has(profile));
    if (!profiles.has(scenario.profile) || lacking.length === 0) continue;
    for (const id of scenario.covers) {
      if (!selectedIds.has(id)) continue;
      evidence.record({
        requirementId: id,
        outcome: 'skip',
        message: `needs the ${lacking.join(' and ')} profile${lacking.length > 1 ? 's' : ''} as well, for its fixtures`,
      });
    }
  }
  const remaining = new Map<string, number>();
  for (const scenario of toRun)
    for (const id of scenario.covers) remaining.set(id, (remaining.get(id) ?? 0) + 1);
  const spent = new Map<string, number>();

  const results = new Map<string, RequirementResult>();
  const emit = (requirement: ConformanceRequirement) => {
    const durationMs =
      requirement.kind === 'response' || requirement.kind === 'value'
        ? caller.calls
            .filter((call) => requirement.operations.includes(call.operationId))
            .reduce((sum, call) => sum + call.durationMs, 0)
        : (spent.get(requirement.id) ?? 0);
    const result = judge(
      requirement,
      evidence.all.filter((e) => e.requirementId === requirement.id),
      expectedIds.get(requirement.id),
      started,
      durationMs,
    );
    results.set(requirement.id, result);
    options.onResult?.(result);
  };

  const runScenario = async (scenario: Scenario) => {
    const checked = new Set<string>();
    const began = performance.now();
    try {
      await running.run({ index: scenarios.indexOf(scenario), count: 0, checked }, () =>
        scenario.run(context),
      );
    } catch (error) {
      // A scenario that broke before checking something leaves that requirement its reason;
      // a precondition that did not hold voids what it had checked too.
      for (const id of scenario.covers)
        if (!checked.has(id) || error instanceof PreconditionError)
          evidence.record(evidenceOf(id, error));
    }
    const took = performance.now() - began;
    for (const id of scenario.covers) {
      spent.set(id, (spent.get(id) ?? 0) + took);
      const left = (remaining.get(id) ?? 1) - 1;
      remaining.set(id, left);
      const requirement = selected.find((r) => r.id === id);
      if (left === 0 && requirement && requirement.kind !== 'response') emit(requirement);
    }
  };

  // Scenarios that judge the whole account (cancel_all, "nothing was created") run alone,
  // after the others, which may run side by side.
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  const shared = concurrency === 1 ? toRun : toRun.filter((scenario) => !scenario.exclusive);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, shared.length) }, async () => {
      while (next < shared.length) await runScenario(shared[next++] as Scenario);
    }),
  );
  if (concurrency > 1)
    for (const scenario of toRun.filter((s) => s.exclusive)) await runScenario(scenario);

  const leftovers = await cleanUp(context);
  for (const requirement of selected)
    if (requirement.kind === 'value')
      for (const item of valueEvidence(requirement, caller, target)) evidence.record(item);
  for (const requirement of selected) if (!results.has(requirement.id)) emit(requirement);

  const ordered = selected.map((requirement) => results.get(requirement.id) as RequirementResult);
  const summary = Object.fromEntries(verdicts.map((verdict) => [verdict, 0])) as Record<
    Verdict,
    number
  >;
  for (const result of ordered) summary[result.verdict]++;
  return {
    schemaVersion: 1,
    runId,
    seed,
    ...(stateless ? { stateless } : {}),
    startedAt: started.toISOString(),
    durationMs: Date.now() - startedMs,
    target: {
      exchangeUrl: target.exchangeUrl,
      partnerUrl: target.partnerUrl,
      tokenId: target.tokenId,
      publicApiKey: target.publicApiKey,
    },
    profiles: [...profiles],
    summary,
    mustFailures: ordered
      .filter((r) => r.level === 'MUST' && (r.verdict === 'FAIL' || r.verdict === 'ERROR'))
      .map((r) => r.id),
    results: ordered,
    leftovers,
    calls: caller.calls.length,
  };
}

/** Cancels every order of the run that is still live; returns those it could not. */
async function cleanUp(context: ScenarioContext): Promise<string[]> {
  if (context.created.length === 0) return [];
  const ours = new Set(context.created.map((order) => String(order.id)));
  const leftovers: string[] = [];
  try {
    const listed = await context.caller.call('listOrders', {
      query: { status: 'live', limit: '1000' },
    });
    const models = (
      (listed.json as { models?: Record<string, unknown>[] } | undefined)?.models ?? []
    ).filter(
      (order) =>
        ours.has(String(order.id)) ||
        String(order.client_order_id ?? '').startsWith(`${context.runId}-`),
    );
    for (const order of models) {
      const cancelled = await context.caller.call('cancelOrder', {
        path: { order_id: String(order.id) },
      });
      if (cancelled.status !== 200) leftovers.push(String(order.id));
    }
  } catch {
    leftovers.push(...ours);
  }
  return leftovers;
}
