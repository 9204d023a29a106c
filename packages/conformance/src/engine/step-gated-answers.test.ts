import { describe, expect, it } from 'vitest';
import type { Scenario } from '../scenarios/scenario.js';
import { defaultLacks } from './adapter.js';
import { catalogById } from './catalog.js';
import { scenarios } from './run.js';
import { operation } from './spec.js';
import { answeredOnlyAfterMissingSteps } from './step-gated-answers.js';

/** A scenario that reaches `answers` only after `step`, as a new one would be declared. */
const reaching = (step: 'moveMarkPrice' | 'placeFilledOrder', answers: string[]): Scenario => ({
  name: `reaches ${answers.join(', ')} after ${step}`,
  profile: 'orders',
  covers: [],
  needs: [{ step, answers }],
  run: async () => undefined,
});

const expectsSuccess = (id: string) => {
  const status = catalogById.get(id)?.row?.expect.status;
  return status !== undefined && status >= 200 && status < 300;
};

describe('the operations answered only after a step the default adapter lacks', () => {
  it('are those the scenarios declare: updateLoan, which only a borrower the caller is not leads to', () => {
    expect(answeredOnlyAfterMissingSteps(scenarios)).toEqual(new Set(['updateLoan']));
  });

  it('take in a new scenario reaching an operation only through test control', () => {
    const added = [...scenarios, reaching('moveMarkPrice', ['getTrade'])];
    expect(answeredOnlyAfterMissingSteps(added)).toEqual(new Set(['updateLoan', 'getTrade']));
  });

  it('leave out what a step the default adapter has leads to', () => {
    expect(defaultLacks('placeFilledOrder')).toBe(false);
    expect(defaultLacks('moveMarkPrice')).toBe(true);
    const added = [...scenarios, reaching('placeFilledOrder', ['getTrade'])];
    expect(answeredOnlyAfterMissingSteps(added)).toEqual(new Set(['updateLoan']));
  });

  it('name operations whose 2xx the declaring scenario expects, and no scenario without such a step', () => {
    const declared = answeredOnlyAfterMissingSteps(scenarios);
    const expectedBy = (scenario: Scenario, operationId: string) =>
      scenario.covers.some(
        (id) => expectsSuccess(id) && catalogById.get(id)?.operations.includes(operationId),
      );
    const lacking = (scenario: Scenario) =>
      (scenario.needs ?? []).some((need) => defaultLacks(need.step));
    for (const operationId of declared) {
      expect(operation(operationId).operationId).toBe(operationId);
      const declaring = scenarios.filter((scenario) =>
        scenario.needs?.some((need) => need.answers?.includes(operationId)),
      );
      expect(declaring.every((scenario) => expectedBy(scenario, operationId))).toBe(true);
      const without = scenarios.filter(
        (scenario) => !lacking(scenario) && expectedBy(scenario, operationId),
      );
      expect(without.map((scenario) => scenario.name)).toEqual([]);
    }
  });
});
