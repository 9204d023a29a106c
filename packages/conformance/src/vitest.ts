import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ConformanceReport,
  type RunOptions,
  runConformance,
  selectRequirements,
} from './engine/run.js';
import type { Target } from './engine/target.js';

export interface DescribeConformanceOptions extends RunOptions {
  /** How long the whole run may take; 60 s by default. */
  timeoutMs?: number;
}

/**
 * The conformance suite inside an implementer's own vitest suite: one test per requirement,
 * named by its id. The run happens once, before the tests; a MUST that fails or errors fails
 * its test, a SKIP skips it, the other verdicts pass.
 */
export function describeConformance(
  name: string,
  target: Target | (() => Target | Promise<Target>),
  options: DescribeConformanceOptions = {},
): void {
  const { selected } = selectRequirements(options);
  describe(name, () => {
    let report: ConformanceReport;
    beforeAll(async () => {
      report = await runConformance(
        typeof target === 'function' ? await target() : target,
        options,
      );
    }, options.timeoutMs ?? 60_000);
    for (const requirement of selected) {
      it(requirement.id, (context) => {
        const result = report.results.find((r) => r.id === requirement.id);
        if (!result || result.verdict === 'SKIP') {
          context.skip(result?.message);
          return;
        }
        const broken =
          result.level === 'MUST' && (result.verdict === 'FAIL' || result.verdict === 'ERROR');
        expect(broken ? `${result.verdict}: ${result.message}` : 'met').toBe('met');
      });
    }
  });
}
