import { type ConformanceRequirement, type Profile, responseRequirementId } from './catalog.js';
import { isSuccess, type SpecClient } from './context.js';
import { type ExpectedFailure, isCurrent } from './expected-failures.js';
import type { Evidence, RecordedCall } from './outcome.js';
import { operation } from './spec.js';
import type { Target } from './target.js';
import { judgeValues, valueContextOf } from './values.js';

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

/** The evidence a response gives about its operation's response requirement. */
export function responseEvidence(call: RecordedCall): Evidence {
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
export function valueEvidence(
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

/**
 * The verdict on a requirement from its evidence. A response or value requirement took the
 * time of its operations' calls; any other the time of its scenarios, `scenariosMs`.
 */
export function resultOf(
  requirement: ConformanceRequirement,
  evidence: readonly Evidence[],
  expected: ExpectedFailure | undefined,
  now: Date,
  calls: readonly RecordedCall[],
  scenariosMs: number,
  failedBefore?: RequirementResult,
): RequirementResult {
  const own = calls.filter((call) => requirement.operations.includes(call.operationId));
  const durationMs =
    requirement.kind === 'response' || requirement.kind === 'value'
      ? own.reduce((sum, call) => sum + call.durationMs, 0)
      : scenariosMs;
  const found = evidence.filter((e) => e.requirementId === requirement.id);
  const unproven =
    requirement.kind === 'response' ? unprovenResponse(requirement, own, found) : undefined;
  if (unproven) {
    // A scenario that would have read the success body may have stopped at the failure: the
    // run cannot pass a server whose body it never saw, nor blame the suite for not looking.
    // An operation never called because a SHOULD (WARN) stopped the scenario is not judged:
    // what a server need not do does not make the run fail. One the server was asked and never
    // answered with success is an error, whatever stopped the rest.
    const stoppedAt = failedBefore
      ? `; a scenario that reads it may have stopped at ${failedBefore.id} (${failedBefore.verdict}): ${failedBefore.message}`
      : '';
    const behindShould = own.length === 0 && failedBefore?.verdict === 'WARN';
    const unread: Evidence = {
      requirementId: requirement.id,
      outcome: failedBefore && !behindShould ? 'error' : 'skip',
      message: `${unproven}${stoppedAt}`,
    };
    return judge(requirement, [unread], expected, now, durationMs);
  }
  return judge(requirement, found, expected, now, durationMs);
}

/**
 * Why a response requirement is not proven by what the run saw, if it is not: its operation
 * was never called, or never answered with success, so no success body was checked.
 */
function unprovenResponse(
  requirement: ConformanceRequirement,
  calls: readonly RecordedCall[],
  evidence: readonly Evidence[],
): string | undefined {
  if (evidence.some((e) => e.outcome === 'fail' || e.outcome === 'error')) return undefined;
  const [operationId] = requirement.operations;
  if (calls.length === 0) return `${operationId} was never called`;
  if (calls.some((call) => isSuccess(call.status))) return undefined;
  const statuses = [...new Set(calls.map((call) => call.status))].join(', ');
  return `no call of ${operationId} was answered with success (${statuses}), so no success body was checked`;
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
