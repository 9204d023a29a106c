import type { AsyncLocalStorage } from 'node:async_hooks';
import type { Scenario, ScenarioContext } from '../scenarios/scenario.js';
import { type Evidences, evidenceOf } from './context.js';
import type { RunningScenario } from './fixtures.js';
import { PreconditionError } from './outcome.js';

/**
 * Runs the scenarios, at most `concurrency` side by side; those that judge the whole account
 * (cancel_all, "nothing was created") run alone, after the others. `covered` is told of each
 * requirement once the last scenario covering it is done, with the time its scenarios took,
 * so its verdict need not wait for the rest of the run.
 */
export async function runScenarios(
  toRun: readonly Scenario[],
  run: {
    concurrency: number;
    /** Each scenario's place in the whole list, which its client order ids carry. */
    indexOf: (scenario: Scenario) => number;
    context: ScenarioContext;
    evidence: Evidences;
    running: AsyncLocalStorage<RunningScenario>;
    covered: (requirementId: string, scenariosMs: number) => void;
  },
): Promise<void> {
  const { context, evidence, running } = run;
  const remaining = new Map<string, number>();
  for (const scenario of toRun)
    for (const id of scenario.covers) remaining.set(id, (remaining.get(id) ?? 0) + 1);
  const spent = new Map<string, number>();

  const runScenario = async (scenario: Scenario) => {
    const checked = new Set<string>();
    const began = performance.now();
    try {
      await running.run({ index: run.indexOf(scenario), count: 0, checked }, () =>
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
      if (left === 0) run.covered(id, spent.get(id) ?? 0);
    }
  };

  const concurrency = Math.max(1, Math.floor(run.concurrency));
  const shared = concurrency === 1 ? toRun : toRun.filter((scenario) => !scenario.exclusive);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, shared.length) }, async () => {
      while (next < shared.length) await runScenario(shared[next++] as Scenario);
    }),
  );
  if (concurrency > 1)
    for (const scenario of toRun.filter((s) => s.exclusive)) await runScenario(scenario);
}
