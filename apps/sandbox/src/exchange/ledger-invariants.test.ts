import { hasFlag } from '@exchange-kit/contract/state-tables';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExchangeState } from '../state/exchange-state.js';
import { D } from '../state/records.js';
import type { Client } from '../test-support.js';
import { memorySandbox } from '../testing/memory-sandbox.js';
import { freshProduct } from '../testing/trading.js';
import { chargeDueInterest } from './borrowing.js';
import { moveMarkPrice } from './position-exits.js';
import { reservedHolders } from './reserved-details.js';
import { canMove, moveWithdrawal } from './withdrawal-moves.js';

/** What brings a currency into the exchange or takes it out; every other entry moves it within. */
const external = new Set(['funding', 'withdrawal']);

/**
 * The ledger's invariants, each broken one a line: for every account (the house's too), the
 * entries sum to the balance and the last one's balance is it; what holds the reserved
 * balance sums to it; and across all accounts a currency totals what came in and went out.
 */
export function ledgerProblems(state: ExchangeState): string[] {
  const problems: string[] = [];
  const totals = new Map<string, D>();
  const flows = new Map<string, D>();
  const add = (map: Map<string, D>, currency: string, amount: D) =>
    map.set(currency, (map.get(currency) ?? new D(0)).plus(amount));
  for (const [userId, byCurrency] of state.accounts) {
    const entries = state.entriesByUser.of(userId);
    for (const account of byCurrency.values()) {
      const own = entries.filter((entry) => entry.currency === account.currency);
      const sum = own.reduce((total, entry) => total.plus(entry.amount), new D(0));
      const last = own.at(-1)?.balance ?? new D(0);
      const where = `user ${userId} ${account.currency}`;
      if (!sum.eq(account.balance))
        problems.push(`${where}: entries sum to ${sum}, balance ${account.balance}`);
      if (!last.eq(account.balance))
        problems.push(`${where}: last entry says ${last}, balance ${account.balance}`);
      const held = reservedHolders(state, userId, account.currency).reduce(
        (total, holder) => total.plus(holder.amount),
        new D(0),
      );
      if (!held.eq(account.reserved))
        problems.push(`${where}: holders sum to ${held}, reserved ${account.reserved}`);
      add(totals, account.currency, account.balance);
    }
    for (const entry of entries) {
      if (!byCurrency.has(entry.currency))
        problems.push(`user ${userId}: entry ${entry.id} names no account`);
      if (external.has(entry.sourceAction)) add(flows, entry.currency, entry.amount);
    }
  }
  for (const [currency, total] of totals) {
    const flow = flows.get(currency) ?? new D(0);
    if (!total.eq(flow))
      problems.push(`${currency}: accounts total ${total}, funds in and out ${flow}`);
  }
  return problems;
}

type Command =
  | {
      kind: 'limit';
      who: number;
      side: 'buy' | 'sell';
      steps: number;
      lots: number;
      margin: boolean;
      inBase: boolean;
    }
  | {
      kind: 'market';
      who: number;
      side: 'buy' | 'sell';
      lots: number;
      margin: boolean;
      inBase: boolean;
    }
  | { kind: 'edit'; who: number; pick: number; steps: number; lots: number }
  | { kind: 'tpsl'; who: number; steps: number }
  | { kind: 'cancel'; who: number; pick: number }
  | { kind: 'withdraw'; who: number; lots: number; currency: 'BTC' | 'JPY' }
  | { kind: 'cancelWithdrawal'; who: number; pick: number }
  | { kind: 'endWithdrawal'; who: number; pick: number; to: 'processed' | 'declined' }
  | { kind: 'mark'; who: number; steps: number }
  | { kind: 'lend'; who: number; lots: number }
  | { kind: 'clock'; who: number; hours: number };

const who = fc.integer({ min: 0, max: 2 });
const side = fc.constantFrom('buy' as const, 'sell' as const);
const steps = fc.integer({ min: -6, max: 6 });
const near = fc.integer({ min: -2, max: 2 });
const lots = fc.integer({ min: 1, max: 40 });
const pick = fc.nat({ max: 30 });
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('limit' as const),
      who,
      side,
      steps,
      lots,
      margin: fc.boolean(),
      inBase: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('market' as const),
      who,
      side,
      lots,
      margin: fc.boolean(),
      inBase: fc.boolean(),
    }),
  },
  fc.record({ kind: fc.constant('edit' as const), who, pick, steps, lots }),
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('tpsl' as const), who, steps: near }) },
  fc.record({ kind: fc.constant('cancel' as const), who, pick }),
  fc.record({
    kind: fc.constant('withdraw' as const),
    who,
    lots,
    currency: fc.constantFrom('BTC' as const, 'JPY' as const),
  }),
  fc.record({ kind: fc.constant('cancelWithdrawal' as const), who, pick }),
  fc.record({
    kind: fc.constant('endWithdrawal' as const),
    who,
    pick,
    to: fc.constantFrom('processed' as const, 'declined' as const),
  }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('mark' as const), who, steps }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('lend' as const), who, lots }) },
  fc.record({ kind: fc.constant('clock' as const), who, hours: fc.integer({ min: 1, max: 72 }) }),
);

// Prices a few ticks around 1000, so that orders cross, rest on each other and reach the
// take profits and stop losses set around them; odd fee rates, so no digit comes out round.
const price = (at: number) => String(1000 + at);
// Mark prices far enough from 1000 to reach the take profits and stop losses and, beyond a
// sixth of the price, the liquidation of positions at leverage 3.
const markPrice = (at: number) => new D(1000 + at * 40);
const quantity = (count: number) => (count * 0.00037).toFixed(5);
const marginBody = { trading_type: 'margin', leverage_level: 3 };
// Funded in BTC, a position borrows from the loan bids of the users; in JPY, from the house.
const margin = (command: { margin: boolean; inBase: boolean }) =>
  command.margin ? { ...marginBody, funding_currency: command.inBase ? 'BTC' : 'JPY' } : {};
// A withdrawal of a currency traded: a crypto one of the pair's base currency, a fiat one of
// its quote currency to the user's one bank account.
const withdrawal = (command: { lots: number; currency: 'BTC' | 'JPY' }, bankAccountId: number) =>
  command.currency === 'BTC'
    ? {
        path: '/crypto_withdrawals',
        cancel: '/crypto_withdrawal',
        body: {
          crypto_withdrawal: {
            currency: 'BTC',
            address,
            amount: (command.lots * 0.002).toFixed(3),
          },
        },
      }
    : {
        path: '/withdrawals',
        cancel: '/withdrawals',
        body: {
          withdrawal: {
            currency: 'JPY',
            amount: String(command.lots * 1000),
            bank_account_id: bankAccountId,
          },
        },
      };
const address = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

async function perform(
  call: Client,
  own: number[],
  withdrawals: string[],
  product_id: number,
  command: Command,
) {
  const chosen = own[('pick' in command ? command.pick : 0) % Math.max(own.length, 1)];
  const place = async (body: Record<string, unknown>) => {
    const answer = await call('POST', '/orders', { body: { product_id, ...body } });
    if (answer.status === 200) own.push((answer.body as { id: number }).id);
  };
  switch (command.kind) {
    case 'limit':
      return place({
        order_type: 'limit',
        side: command.side,
        price: price(command.steps),
        quantity: quantity(command.lots),
        ...margin(command),
      });
    case 'market':
      return place({
        order_type: 'market',
        side: command.side,
        quantity: quantity(command.lots),
        ...margin(command),
      });
    case 'edit':
      if (chosen === undefined) return;
      return call('PUT', `/orders/${chosen}`, {
        body: { price: price(command.steps), quantity: quantity(command.lots) },
      });
    case 'tpsl': {
      // On the last order placed, which is most often still live: only a live order takes one.
      const last = own.at(-1);
      if (last === undefined) return;
      return call('PUT', `/orders/${last}/update_tpsl`, {
        body: { take_profit: price(2 + command.steps), stop_loss: price(command.steps - 2) },
      });
    }
    case 'cancel':
      if (chosen === undefined) return;
      return call('PUT', `/orders/${chosen}/cancel`);
    case 'withdraw': {
      const [bank] = (await call('GET', '/bank_accounts')).body as { id: number }[];
      const { path, cancel, body } = withdrawal(command, bank?.id ?? 0);
      const answer = await call('POST', path, { body });
      const { id } = answer.body as { id: number };
      if (answer.status === 200) withdrawals.push(`${cancel}/${id}/cancel`);
      return answer;
    }
    case 'lend': {
      const body = {
        loan_bid: { currency: 'BTC', rate: '0.0002', quantity: quantity(command.lots) },
      };
      const answer = await call('POST', '/loan_bids', { body });
      // Closing a bid releases its hold as cancelling a withdrawal does: one list of both.
      if (answer.status === 200)
        withdrawals.push(`/loan_bids/${(answer.body as { id: number }).id}/close`);
      return answer;
    }
    case 'cancelWithdrawal': {
      const cancel = withdrawals[command.pick % Math.max(withdrawals.length, 1)];
      return cancel === undefined ? undefined : call('PUT', cancel);
    }
  }
}

describe('the ledger, whatever is traded', () => {
  it('explains every balance and every hold (withdrawals waiting and loan bids too), and moves no currency in or out but by deposits and withdrawals (their fees paid to the house), whatever the mark price closes and whatever positions borrow and pay in interest', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 15, maxLength: 40 }), async (commands) => {
        let clock = 1_716_000_000_000;
        const sandbox = await memorySandbox({ now: () => clock });
        const product_id = await freshProduct(sandbox, {
          margin: true,
          takerFee: '0.0013',
          makerFee: '0.0007',
        });
        const users = [sandbox.addUser(), sandbox.addUser(), sandbox.addUser()];
        const orders: number[][] = [[], [], []];
        const withdrawals: string[][] = [[], [], []];
        for (const step of commands) {
          const own = [orders[step.who] ?? [], withdrawals[step.who] ?? []] as const;
          if (step.kind === 'clock') {
            // As test control moves the clock: the loans' interest of the days passed is owed.
            clock += step.hours * 3_600_000;
            await sandbox.sequencer.run((journal) => chargeDueInterest(journal, clock));
          } else if (step.kind === 'endWithdrawal') {
            // As test control moves one: processed pays its amount out and its fee to the house.
            const userId = users[step.who]?.userId;
            const waiting = [...sandbox.sequencer.state.exchange.withdrawals.values()].filter(
              (w) => w.userId === userId && !hasFlag('withdrawal', w.state, 'terminal'),
            );
            const chosen = waiting[step.pick % Math.max(waiting.length, 1)];
            const { now } = sandbox;
            if (chosen) {
              await sandbox.sequencer.run((journal) => {
                if (!canMove(chosen.state, step.to)) {
                  moveWithdrawal(journal, 'exchange', chosen.id, 'processing', now());
                }
                moveWithdrawal(journal, 'exchange', chosen.id, step.to, now());
              });
            }
          } else if (step.kind === 'mark') {
            const { now } = sandbox;
            await sandbox.sequencer.run((journal) =>
              moveMarkPrice(journal, product_id, markPrice(step.steps), now()),
            );
          } else {
            await perform(users[step.who]?.call as Client, ...own, product_id, step);
          }
          expect(ledgerProblems(sandbox.sequencer.state.exchange)).toEqual([]);
        }
      }),
      { seed: 2_516, numRuns: 40 },
    );
  });
});
