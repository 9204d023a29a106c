import { restingBuy } from '../engine/adapter.js';
import { bodyOf, expectStatus, failAt, type SpecClient } from '../engine/context.js';
import type { RecordedCall } from '../engine/outcome.js';
import type { Scenario, ScenarioContext } from './scenario.js';

const othersObjects = 'AUTH-OTHER-USERS-OBJECTS';

/** A call of the caller's naming another trader's object, and what the object is. */
interface Probe {
  what: string;
  send: () => Promise<RecordedCall>;
}

/** What another trader made for the caller to name, and how it reads it back. */
interface Made {
  probes: Probe[];
  /** Each object as its owner reads it before the probes, to compare with after them. */
  reads: { what: string; read: () => ReturnType<typeof stateOf> }[];
  cleanUp: (() => Promise<unknown>)[];
}

/** The part of an answer that says what its object is now, without the time it was read. */
async function stateOf(
  call: Promise<RecordedCall>,
  pick: (body: Record<string, unknown>) => unknown,
): Promise<{ call: RecordedCall; state: string }> {
  const read = await call;
  expectStatus(read, 200);
  return { call: read, state: JSON.stringify(pick(bodyOf(read))) };
}

/**
 * Another trader's resting order, live loan bid, trading account and OAuth request, each named
 * by its id in the caller's calls that read or change such a thing.
 */
async function othersThings(context: ScenarioContext, other: SpecClient): Promise<Made> {
  const made: Made = { probes: [], reads: [], cleanUp: [] };
  const { primary: product } = await context.market();
  const placed = await other.call('createOrder', {
    body: restingBuy(product, context.clientOrderId()),
  });
  expectStatus(placed, 200, "200: the other trader's order, live");
  const order_id = String(bodyOf(placed).id);
  made.cleanUp.push(() => other.call('cancelOrder', { path: { order_id } }));
  made.probes.push(
    { what: 'order', send: () => context.caller.call('getOrder', { path: { order_id } }) },
    {
      what: 'order',
      send: () =>
        context.caller.call('editOrder', {
          path: { order_id },
          body: { quantity: product.quantity, price: product.restingBuyPrice },
        }),
    },
    { what: 'order', send: () => context.caller.call('cancelOrder', { path: { order_id } }) },
  );
  made.reads.push({
    what: `order ${order_id}`,
    read: () =>
      stateOf(other.call('getOrder', { path: { order_id } }), (o) => [
        o.status,
        o.price,
        o.quantity,
      ]),
  });

  if (context.profiles.has('loans')) {
    const bid = await other.call('createLoanBid', {
      body: {
        loan_bid: { currency: product.baseCurrency, rate: '0.0001', quantity: product.quantity },
      },
    });
    expectStatus(bid, 200, "200: the other trader's loan bid, live");
    const loan_bid_id = String(bodyOf(bid).id);
    made.cleanUp.push(() => other.call('closeLoanBid', { path: { loan_bid_id } }));
    made.probes.push({
      what: 'loan bid',
      send: () => context.caller.call('closeLoanBid', { path: { loan_bid_id } }),
    });
    const currency = product.baseCurrency;
    made.reads.push({
      what: `loan bid ${loan_bid_id}`,
      read: () =>
        stateOf(other.call('listLoanBids', { query: { currency, limit: '1000' } }), (page) =>
          ((page.models as Record<string, unknown>[] | undefined) ?? [])
            .filter((each) => String(each.id) === loan_bid_id)
            .map((each) => each.status),
        ),
    });
  }

  const accounts = await other.call('listTradingAccounts', {});
  expectStatus(accounts, 200);
  const [account] = Array.isArray(accounts.json)
    ? (accounts.json as Record<string, unknown>[])
    : [];
  if (account) {
    const trading_account_id = String(account.id);
    made.probes.push(
      {
        what: 'trading account',
        send: () => context.caller.call('getTradingAccount', { path: { trading_account_id } }),
      },
      {
        what: 'trading account',
        send: () =>
          context.caller.call('updateTradingAccount', {
            path: { trading_account_id },
            body: { trading_account: { leverage_level: 1 } },
          }),
      },
    );
    made.reads.push({
      what: `trading account ${trading_account_id}`,
      read: () =>
        stateOf(other.call('getTradingAccount', { path: { trading_account_id } }), (a) => [
          a.leverage_level,
        ]),
    });
  }

  if (context.profiles.has('oauth')) {
    const requested = await other.call('createOAuthRequest', {
      body: { external_ref: `${context.runId}-others` },
    });
    expectStatus(requested, 200);
    const oauth_request_public_id = String(bodyOf(requested).oauth_request_public_id);
    made.probes.push({
      what: 'OAuth request',
      send: () => context.caller.call('getOAuthRequest', { path: { oauth_request_public_id } }),
    });
  }
  return made;
}

/**
 * Each call of the caller's naming another trader's object is answered 404, as an unknown id
 * is, and the object reads as it did.
 */
async function checkOthersObjects(context: ScenarioContext): Promise<string> {
  const other = await context.anotherTrader();
  const made = await othersThings(context, other);
  try {
    const before = await Promise.all(made.reads.map(({ read }) => read()));
    for (const { what, send } of made.probes) {
      const call = await send();
      if (call.status !== 404) {
        failAt(
          `${call.operationId} of the caller's, naming another trader's ${what}, answered ${call.status}`,
          call,
          `404, as for an id unknown to the caller: no ${what} of the caller's has it`,
        );
      }
    }
    for (const [n, { what, read }] of made.reads.entries()) {
      const now = await read();
      const was = before[n]?.state;
      if (now.state !== was) {
        failAt(
          `another trader's ${what} reads ${now.state} after the caller's calls naming it, ${String(was)} before`,
          now.call,
          'as before: nothing of it changed',
        );
      }
    }
    const named = [...new Set(made.probes.map(({ what }) => what))];
    return `${made.probes.length} calls naming another trader's ${named.join(', ')}: each 404, each unchanged`;
  } finally {
    for (const cleanUp of made.cleanUp) await cleanUp();
  }
}

const othersObjectsScenario: Scenario = {
  name: "another trader's order, loan bid, trading account and OAuth request named by the caller",
  profile: 'auth',
  requires: ['orders'],
  covers: [othersObjects],
  needs: [{ step: 'anotherTrader' }],
  run: (context) => context.evidence.check(othersObjects, () => checkOthersObjects(context)).then(),
};

export const othersObjectsScenarios: Scenario[] = [othersObjectsScenario];
