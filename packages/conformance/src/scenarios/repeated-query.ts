import { failAt } from '../engine/context.js';
import type { Scenario } from './scenario.js';

const repeatedQuery = 'INPUT-REPEATED-QUERY';

/**
 * The public fills of the primary product with `limit` given twice: which value was meant
 * cannot be told, so the call is refused naming it, where an answer would take one of them.
 */
const givenTwice: Scenario = {
  name: 'a query parameter given more than once',
  profile: 'input',
  covers: [repeatedQuery],
  async run(context) {
    await context.evidence.check(repeatedQuery, async () => {
      const market = await context.market();
      const call = await context.caller.call('listExecutions', {
        query: { product_id: market.primary.id, limit: ['1', '2'] },
      });
      const errors = (call.json as { errors?: Record<string, unknown> } | null)?.errors;
      const named = errors?.limit;
      if (call.status !== 400 || !Array.isArray(named) || !named.includes('given_more_than_once')) {
        failAt(
          `GET /executions with limit=1&limit=2 answered ${call.status}`,
          call,
          '400 with errors.limit ["given_more_than_once"]',
        );
      }
      return 'limit=1&limit=2 refused with 400 naming limit';
    });
  },
};

export const repeatedQueryScenarios: Scenario[] = [givenTwice];
