import type { Profile } from './catalog.js';
import { type RequirementResult, type Verdict, verdicts } from './judging.js';
import type { Target } from './target.js';

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
  target: {
    exchangeUrl: string;
    partnerUrl: string;
    tokenId: string;
    publicApiKey: string;
    /** Given when the events are served elsewhere than the exchange's host. */
    eventsUrl?: string;
  };
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

/** What a run found, in the report's shape: its results in catalog order, counted by verdict. */
export function summarise(run: {
  runId: string;
  seed: string;
  stateless: string | undefined;
  started: Date;
  startedMs: number;
  target: Target;
  profiles: ReadonlySet<Profile>;
  ordered: RequirementResult[];
  leftovers: string[];
  calls: number;
}): ConformanceReport {
  const { ordered, target, stateless } = run;
  const summary = Object.fromEntries(verdicts.map((verdict) => [verdict, 0])) as Record<
    Verdict,
    number
  >;
  for (const result of ordered) summary[result.verdict]++;
  return {
    schemaVersion: 1,
    runId: run.runId,
    seed: run.seed,
    ...(stateless ? { stateless } : {}),
    startedAt: run.started.toISOString(),
    durationMs: Date.now() - run.startedMs,
    target: {
      exchangeUrl: target.exchangeUrl,
      partnerUrl: target.partnerUrl,
      tokenId: target.tokenId,
      publicApiKey: target.publicApiKey,
      ...(target.eventsUrl === undefined ? {} : { eventsUrl: target.eventsUrl }),
    },
    profiles: [...run.profiles],
    summary,
    mustFailures: ordered
      .filter((r) => r.level === 'MUST' && (r.verdict === 'FAIL' || r.verdict === 'ERROR'))
      .map((r) => r.id),
    results: ordered,
    leftovers: run.leftovers,
    calls: run.calls,
  };
}
