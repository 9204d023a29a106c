import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../server.js';
import type { SandboxState } from '../state/sandbox-state.js';
import { snapshot } from '../state/snapshot.test-support.js';
import { type Client, demoClient, lastingStore, newUser, send } from '../test-support.js';
import { pendingTransaction } from '../testing/pending-transaction.js';
import { readIntents } from './partner-load.js';

/**
 * One call of a random sequence. Orders name a price as steps from the market maker's book,
 * so that some cross it, some rest and some rest on each other; `pick` names one of the
 * caller's orders, or a transaction, so far.
 */
type Command =
  | {
      kind: 'limit';
      who: number;
      product: 1 | 2;
      side: 'buy' | 'sell';
      steps: number;
      lots: number;
      margin: boolean;
    }
  | { kind: 'market'; who: number; side: 'buy' | 'sell'; lots: number }
  | { kind: 'edit'; who: number; pick: number; steps: number }
  | { kind: 'tpsl'; who: number; pick: number; steps: number }
  | { kind: 'cancel'; who: number; pick: number }
  | { kind: 'cancelAll'; who: number }
  | { kind: 'transaction' }
  | { kind: 'settle'; pick: number; status: 'FILLED' | 'CANCELLED' }
  | { kind: 'clock'; seconds: number }
  | { kind: 'withdraw'; who: number; fiat: boolean }
  | { kind: 'cancelWithdrawal'; who: number; pick: number }
  | { kind: 'moveWithdrawal'; pick: number; to: 'processing' | 'processed' | 'declined' }
  | { kind: 'deposit'; who: number }
  | { kind: 'loanBid'; who: number; lots: number }
  | { kind: 'closeLoanBid'; who: number; pick: number };

const who = fc.integer({ min: 0, max: 1 });
const side = fc.constantFrom('buy' as const, 'sell' as const);
const steps = fc.integer({ min: -6, max: 6 });
const pick = fc.nat({ max: 40 });
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('limit' as const),
      who,
      product: fc.constantFrom(1 as const, 2 as const),
      side,
      steps,
      lots: fc.integer({ min: 1, max: 30 }),
      margin: fc.boolean(),
    }),
  },
  fc.record({
    kind: fc.constant('market' as const),
    who,
    side,
    lots: fc.integer({ min: 1, max: 10 }),
  }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('edit' as const), who, pick, steps }) },
  fc.record({ kind: fc.constant('tpsl' as const), who, pick, steps }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), who, pick }) },
  fc.record({ kind: fc.constant('cancelAll' as const), who }),
  fc.record({ kind: fc.constant('transaction' as const) }),
  fc.record({
    kind: fc.constant('settle' as const),
    pick,
    status: fc.constantFrom('FILLED' as const, 'CANCELLED' as const),
  }),
  fc.record({ kind: fc.constant('clock' as const), seconds: fc.integer({ min: 1, max: 120 }) }),
  fc.record({ kind: fc.constant('withdraw' as const), who, fiat: fc.boolean() }),
  fc.record({ kind: fc.constant('cancelWithdrawal' as const), who, pick }),
  fc.record({
    kind: fc.constant('moveWithdrawal' as const),
    pick,
    to: fc.constantFrom('processing' as const, 'processed' as const, 'declined' as const),
  }),
  fc.record({ kind: fc.constant('deposit' as const), who }),
  fc.record({ kind: fc.constant('loanBid' as const), who, lots: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ kind: fc.constant('closeLoanBid' as const), who, pick }),
);

// Around the market maker's book of the seed: BTC/JPY at 9,500,000, ETH/JPY at 450,000.
const market = {
  1: { mid: 9_500_000, step: 1000, lot: 0.001 },
  2: { mid: 450_000, step: 100, lot: 0.01 },
};
const price = (product: 1 | 2, at: number) =>
  String(market[product].mid + at * market[product].step);
const quantity = (product: 1 | 2, lots: number) => (lots * market[product].lot).toFixed(3);

interface Actors {
  clients: Client[];
  orders: number[][];
  transactions: string[];
  otherUserId: number;
  /** Every withdrawal made so far, with its kind. */
  withdrawals: { id: number; fiat: boolean }[];
  /** Every loan bid made so far. */
  loanBids: number[];
}

async function perform(sandbox: RunningSandbox, actors: Actors, command: Command): Promise<number> {
  const call = 'who' in command ? actors.clients[command.who] : undefined;
  const own = 'who' in command ? (actors.orders[command.who] ?? []) : [];
  const chosen = (at: number) => own[at % Math.max(own.length, 1)];
  const post = async (body: Record<string, unknown>) => {
    const answer = await call?.('POST', '/orders', { body });
    if (answer?.status === 200) own.push((answer.body as { id: number }).id);
    return answer?.status ?? 0;
  };
  switch (command.kind) {
    case 'limit': {
      const margin = command.margin && command.product === 1;
      return post({
        order_type: 'limit',
        product_id: command.product,
        side: command.side,
        price: price(command.product, command.steps),
        quantity: quantity(command.product, command.lots),
        ...(margin ? { trading_type: 'margin', leverage_level: 2 } : {}),
      });
    }
    case 'market':
      return post({
        order_type: 'market',
        product_id: 1,
        side: command.side,
        quantity: quantity(1, command.lots),
      });
    case 'edit': {
      const id = chosen(command.pick);
      if (id === undefined) return 0;
      return (
        (await call?.('PUT', `/orders/${id}`, { body: { price: price(1, command.steps) } }))
          ?.status ?? 0
      );
    }
    case 'tpsl': {
      const id = chosen(command.pick);
      if (id === undefined) return 0;
      const body = {
        take_profit: price(1, 10 + command.steps),
        stop_loss: price(1, -10 + command.steps),
      };
      return (await call?.('PUT', `/orders/${id}/update_tpsl`, { body }))?.status ?? 0;
    }
    case 'cancel': {
      const id = chosen(command.pick);
      if (id === undefined) return 0;
      return (await call?.('PUT', `/orders/${id}/cancel`))?.status ?? 0;
    }
    case 'cancelAll':
      return (await call?.('PUT', '/orders/cancel_all'))?.status ?? 0;
    case 'transaction':
      actors.transactions.push(
        await pendingTransaction(sandbox.partnerUrl, sandbox.credentials.publicApiKey),
      );
      return 200;
    case 'settle': {
      const id = actors.transactions[command.pick % Math.max(actors.transactions.length, 1)];
      if (id === undefined) return 0;
      const path = `/test/transactions/${id}/status`;
      const body = JSON.stringify({ status: command.status });
      return (
        await send(sandbox.exchangeUrl, 'POST', path, { 'content-type': 'application/json' }, body)
      ).status;
    }
    case 'withdraw': {
      const body = command.fiat
        ? {
            withdrawal: {
              currency: 'JPY',
              amount: '5000',
              bank_account_id: await bankAccount(call),
            },
          }
        : {
            crypto_withdrawal: {
              currency: 'BTC',
              address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
              amount: '0.01',
            },
          };
      const path = command.fiat ? '/withdrawals' : '/crypto_withdrawals';
      const answer = await call?.('POST', path, { body });
      if (answer?.status === 200) {
        actors.withdrawals.push({ id: (answer.body as { id: number }).id, fiat: command.fiat });
      }
      return answer?.status ?? 0;
    }
    case 'cancelWithdrawal': {
      const chosen = actors.withdrawals[command.pick % Math.max(actors.withdrawals.length, 1)];
      if (chosen === undefined) return 0;
      const path = chosen.fiat
        ? `/withdrawals/${chosen.id}/cancel`
        : `/crypto_withdrawal/${chosen.id}/cancel`;
      return (await call?.('PUT', path))?.status ?? 0;
    }
    case 'moveWithdrawal': {
      const chosen = actors.withdrawals[command.pick % Math.max(actors.withdrawals.length, 1)];
      if (chosen === undefined) return 0;
      const path = `/test/withdrawals/${chosen.id}/state`;
      const body = JSON.stringify({ state: command.to });
      return (
        await send(sandbox.exchangeUrl, 'POST', path, { 'content-type': 'application/json' }, body)
      ).status;
    }
    case 'deposit': {
      const userId = command.who === 0 ? 1001 : actors.otherUserId;
      const body = JSON.stringify({ user_id: userId, currency: 'ETH', amount: '1.25' });
      const headers = { 'content-type': 'application/json' };
      return (await send(sandbox.exchangeUrl, 'POST', '/test/deposits', headers, body)).status;
    }
    case 'loanBid': {
      const body = {
        loan_bid: { currency: 'BTC', rate: '0.00025', quantity: quantity(1, command.lots) },
      };
      const answer = await call?.('POST', '/loan_bids', { body });
      if (answer?.status === 200) actors.loanBids.push((answer.body as { id: number }).id);
      return answer?.status ?? 0;
    }
    case 'closeLoanBid': {
      const id = actors.loanBids[command.pick % Math.max(actors.loanBids.length, 1)];
      if (id === undefined) return 0;
      return (await call?.('PUT', `/loan_bids/${id}/close`))?.status ?? 0;
    }
    case 'clock': {
      const body = JSON.stringify({ advance_seconds: command.seconds });
      return (
        await send(
          sandbox.exchangeUrl,
          'POST',
          '/test/clock',
          { 'content-type': 'application/json' },
          body,
        )
      ).status;
    }
  }
}

/** The id of the one bank account of the caller's user. */
async function bankAccount(call: Client | undefined): Promise<number> {
  const answer = await call?.('GET', '/bank_accounts');
  return (answer?.body as { id: number }[] | undefined)?.[0]?.id ?? 0;
}

/** The state, with the intents it holds read in from the store: a start reads none. */
async function withIntents(sandbox: RunningSandbox, ids: string[]): Promise<SandboxState> {
  const state = sandbox.sequencer.state;
  const stored = await sandbox.database.read((tx) => readIntents(tx, ids));
  for (const intent of stored)
    if (!state.partner.intents.has(intent.id)) state.partner.addIntent(intent);
  return state;
}

/** What a restart must give back: everything but the ids memory hands out next. */
const kept = (state: SandboxState) => {
  const { next: _next, ...rest } = snapshot(state);
  return rest;
};

describe('a restart', () => {
  it('gives back the state every answered call left, field by field', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 40, maxLength: 80 }), async (commands) => {
        const store = await lastingStore();
        const options = {
          port: 0,
          testControl: true,
          logDestination: { write: () => undefined },
          ...store,
        };
        const first = await startSandbox(options);
        let before: ReturnType<typeof kept>;
        let intents: string[];
        try {
          const other = await newUser(first);
          const actors: Actors = {
            clients: [demoClient(first), other.call],
            orders: [[], []],
            transactions: [],
            withdrawals: [],
            loanBids: [],
            otherUserId: other.userId,
          };
          for (const each of commands) {
            const status = await perform(first, actors, each);
            expect(status, JSON.stringify(each)).toBeLessThan(500);
          }
          await first.sequencer.settled();
          intents = [...first.sequencer.state.partner.intents.keys()];
          before = kept(first.sequencer.state);
        } finally {
          await first.close();
        }
        const second = await startSandbox(options);
        try {
          expect(kept(await withIntents(second, intents))).toEqual(before);
        } finally {
          await second.close();
        }
      }),
      // Each run starts two sandboxes: shrinking a failure is cut short rather than the test.
      { seed: 24, numRuns: 5, interruptAfterTimeLimit: 120_000, markInterruptAsFailure: true },
    );
  }, 240_000);
});
