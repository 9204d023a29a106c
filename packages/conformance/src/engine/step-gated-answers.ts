import type { Scenario } from '../scenarios/scenario.js';
import { defaultLacks } from './adapter.js';

/**
 * The operations whose 2xx answer only a step the default adapter lacks leads to, as the
 * scenarios that need such a step declare: a run with the default adapter SKIPs what needs the
 * step, so it never sees one of these answers, and whatever judges them needs an adapter that
 * gives the step.
 */
export function answeredOnlyAfterMissingSteps(scenarios: readonly Scenario[]): Set<string> {
  return new Set(
    scenarios.flatMap((scenario) =>
      (scenario.needs ?? [])
        .filter((need) => defaultLacks(need.step))
        .flatMap((need) => need.answers ?? []),
    ),
  );
}
