import { Decimal } from 'decimal.js';
import { restingBuy } from '../engine/adapter.js';
import { failAt, fieldCodes, isClientError } from '../engine/context.js';
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
      const named = fieldCodes(call, 'limit');
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

const repeatedKey = 'INPUT-REPEATED-KEY';

/**
 * A resting buy whose body gives `quantity` twice: JSON.parse keeps the last, and which was
 * meant cannot be told, so the call is refused naming it. An order placed anyway is cancelled.
 */
const keyGivenTwice: Scenario = {
  name: 'a body key given more than once',
  profile: 'input',
  covers: [repeatedKey],
  async run(context) {
    await context.evidence.check(repeatedKey, async () => {
      const { primary } = await context.market();
      const order = JSON.stringify(restingBuy(primary, context.clientOrderId()));
      const twice = new Decimal(primary.quantity).times(2).toFixed();
      const call = await context.caller.call('createOrder', {
        rawBody: `${order.slice(0, -1)},"quantity":"${twice}"}`,
      });
      const placed = (call.json as { id?: unknown } | null)?.id;
      if (call.status === 200 && placed !== undefined) {
        await context.caller.call('cancelOrder', { path: { order_id: String(placed) } });
      }
      const named = fieldCodes(call, 'quantity');
      if (
        !isClientError(call.status) ||
        !Array.isArray(named) ||
        !named.includes('given_more_than_once')
      ) {
        failAt(
          `POST /orders with quantity given twice answered ${call.status}`,
          call,
          '4xx with errors.quantity ["given_more_than_once"]',
        );
      }
      return `quantity given twice refused with ${call.status}: ${JSON.stringify(named)}`;
    });
  },
};

const whitespaceBody = 'INPUT-WHITESPACE-BODY';

/**
 * A cancel_all whose body is one space: read as no body, it would cancel every live order
 * of the caller, where a body that is no JSON is refused. A resting buy placed first must
 * still be live after it; it is cancelled then.
 */
const whitespaceAlone: Scenario = {
  name: 'a body of whitespace alone',
  profile: 'input',
  covers: [whitespaceBody],
  async run(context) {
    await context.evidence.check(whitespaceBody, async () => {
      const { primary } = await context.market();
      const placed = await context.caller.call('createOrder', {
        body: restingBuy(primary, context.clientOrderId()),
      });
      const id = (placed.json as { id?: unknown } | null)?.id;
      if (placed.status !== 200 || id === undefined) {
        failAt('the resting buy was not placed', placed, '200 with the order');
      }
      const order_id = String(id);
      try {
        const call = await context.caller.call('cancelAllOrders', { rawBody: ' ' });
        const read = await context.caller.call('getOrder', { path: { order_id } });
        const status = (read.json as { status?: unknown } | null)?.status;
        if (!isClientError(call.status) || status !== 'live') {
          failAt(
            `PUT /orders/cancel_all with a body of one space answered ${call.status}, and the order placed before it is ${String(status)}`,
            call,
            'a 4xx (a body that is no JSON), the order still live',
          );
        }
        return `one space refused with ${call.status}; the order placed before stayed live`;
      } finally {
        await context.caller.call('cancelOrder', { path: { order_id } });
      }
    });
  },
};

export const inputReadingScenarios: Scenario[] = [givenTwice, keyGivenTwice, whitespaceAlone];
