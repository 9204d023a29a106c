import { describe, expect, it } from 'vitest';
import { Changes } from '../state/journal.js';
import { isOpen } from '../state/records.js';
import { demoClient, startTestSandbox } from '../test-support.js';
import { pendingTransaction } from '../testing/pending-transaction.js';
import { changesSql } from './batch-writes.js';
import { readRecords } from './record-readers.js';

/** Rows in one order, whichever order they came in. */
const byKey = <Row>(rows: Iterable<Row>, key: (row: Row) => string | number) =>
  [...rows].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  });

/** The same rows, whichever order each came in. */
function sameRows<Row>(
  stored: Iterable<Row>,
  memory: Iterable<Row>,
  key: (row: Row) => string | number,
) {
  expect(byKey(stored, key)).toEqual(byKey(memory, key));
}

describe("a table's one column list", () => {
  it('reads back every record a call stored as memory holds it, field by field', async () => {
    const sandbox = await startTestSandbox();
    try {
      const call = demoClient(sandbox);
      const placed = [
        // A fill first: a trailing stop follows the last price.
        { order_type: 'market', product_id: 1, side: 'buy', quantity: '0.001' },
        // A margin fill: a position, and the loan it takes.
        {
          order_type: 'market',
          product_id: 1,
          side: 'buy',
          quantity: '0.001',
          trading_type: 'margin',
          leverage_level: 2,
        },
        // Columns written from a function, read back by the table: a trailing stop.
        {
          order_type: 'trailing_stop',
          product_id: 1,
          side: 'sell',
          quantity: '0.01',
          trailing_stop_type: 'percentage',
          trailing_stop_value: '2.5',
        },
        { order_type: 'limit', product_id: 1, side: 'buy', quantity: '0.0123', price: '9000001' },
        {
          order_type: 'limit',
          product_id: 1,
          side: 'buy',
          quantity: '0.02',
          price: '8000000',
          trading_type: 'margin',
          leverage_level: 2,
          // What COPY's text escapes, read back as it was written.
          client_order_id: 'round\ttrip\\ "\'\n\r é',
        },
      ];
      for (const body of placed) {
        const answer = await call('POST', '/orders', { body });
        expect([body, answer.body, answer.status]).toEqual([body, expect.anything(), 200]);
      }
      // Decimal strings, JSON values and absent ones of Quick Exchange.
      await pendingTransaction(sandbox.partnerUrl, sandbox.credentials.publicApiKey);

      const { exchange, partner } = sandbox.sequencer.state;
      const stored = async <Name extends Parameters<typeof readRecords>[1]>(table: Name) =>
        sandbox.database.read((tx) => readRecords(tx, table, null));

      const orders = await stored('orders');
      const trailing = orders.find((order) => order.orderType === 'trailing_stop');
      expect(trailing?.trailingStop?.type).toBe('percentage');
      expect(trailing?.trailingStop?.value.toFixed()).toBe('2.5');
      sameRows(orders.filter(isOpen), exchange.orders.values(), (o) => o.id);
      sameRows(
        await stored('accounts'),
        [...exchange.accounts.values()]
          .flatMap((byCurrency) => [...byCurrency.values()])
          .map(({ entries: _, ...account }) => account),
        (a) => a.id,
      );
      sameRows(await stored('currency'), exchange.currencies.values(), (c) => c.code);
      const positions = await stored('positions');
      expect(positions).toHaveLength(1);
      sameRows(positions, exchange.positions.values(), (p) => p.id);
      const loans = await stored('loan');
      expect(loans).toHaveLength(1);
      sameRows(loans, exchange.loans.values(), (l) => l.id);
      sameRows(
        await stored('loanBookLevel'),
        [...exchange.loanBook].flatMap(([currency, sides]) =>
          (['bid', 'ask'] as const).flatMap((side) =>
            sides[side].map((level) => ({ currency, side, ...level })),
          ),
        ),
        (l) => `${l.currency} ${l.side} ${l.rate}`,
      );
      sameRows(await stored('assets'), partner.assets.values(), (a) => a.code);
      sameRows(await stored('prices'), partner.prices, (p) => `${p.base} ${p.quote}`);
      sameRows(await stored('session'), partner.sessions.values(), (s) => s.id);
      sameRows(await stored('intent'), partner.intents.values(), (i) => i.id);
      const transactions = await stored('transaction');
      sameRows(transactions, partner.transactions.values(), (t) => t.id);
      const instructions = await stored('instruction');
      sameRows(instructions, partner.instructions.values(), (i) => i.id);
      sameRows(await stored('partnerApplication'), partner.applications.values(), (a) => a.id);
      expect(transactions).toHaveLength(1);
      expect(instructions.length).toBeGreaterThan(0);
    } finally {
      await sandbox.close();
    }
  });
});

describe('history', () => {
  it('is only inserted: a ledger entry written again is refused, and the first one kept', async () => {
    const sandbox = await startTestSandbox();
    try {
      const answer = await demoClient(sandbox)('POST', '/orders', {
        body: { order_type: 'market', product_id: 1, side: 'buy', quantity: '0.001' },
      });
      expect(answer.status).toBe(200);
      const entries = () => sandbox.database.read((tx) => readRecords(tx, 'ledgerEntry'));
      const before = await entries();
      const last = before.at(-1);
      if (!last) throw new Error('The fill posted no entry');
      const again = new Changes();
      again.records.set(`ledgerEntry:${last.id}`, {
        kind: 'ledgerEntry',
        row: { ...last, amount: last.amount.plus(1), balance: last.balance.plus(1) },
      });
      const { sql, prepared } = changesSql(again);
      await expect(sandbox.database.apply(sql, prepared)).rejects.toThrow(/ledger_entries_pkey/);
      expect(await entries()).toEqual(before);
    } finally {
      await sandbox.close();
    }
  });
});
