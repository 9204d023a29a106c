import { type Decimal, decimal, sum } from '@exchange-kit/core/decimal';
import { createExchangeClient, type Transaction } from '@exchange-kit/exchange-client';
import { client, credentials } from './client.js';

// The second demo user plays the rest of the market: its orders fill ours.
const market = createExchangeClient({
  baseUrl: credentials.baseUrl,
  tokenId: process.env.SANDBOX_SECOND_TOKEN_ID ?? '2718281',
  tokenSecret:
    process.env.SANDBOX_SECOND_TOKEN_SECRET ?? 'sandbox-second-demo-secret-not-for-production-use',
});

/** Prints what was checked; one check that fails makes the bot exit 1. */
function check(what: string, holds: boolean): void {
  console.log(`${holds ? 'ok' : 'FAILED'}: ${what}`);
  if (!holds) process.exitCode = 1;
}

/** Where a currency's ledger stands: its newest entry, whose `balance` is the balance. */
async function checkpoint(currency: string): Promise<{ id: number; balance: Decimal }> {
  const [newest] = await client.ledger.history({ currency, limit: 10 });
  return { id: newest?.id ?? 0, balance: decimal(newest?.balance ?? 0) };
}

/** What holds a reserved balance: its holders must add up to it, one of them `holder`. */
async function checkReserved(currency: string, holder: string, id: number, amount: string) {
  const { reserved_balance, details } = await client.accounts.reservedDetails(currency);
  const held = details.find((d) => d.holder_type === holder && d.id === id)?.amount ?? '0';
  check(`${holder} ${id} holds ${amount} ${currency}`, decimal(held).eq(amount));
  const holders = sum(0, ...details.map((d) => d.amount));
  check(
    `${currency} reserved ${reserved_balance} = its holders' ${holders}`,
    decimal(holders).eq(reserved_balance),
  );
}

/**
 * Pages the ledger back to a checkpoint, then walks forward from it: each entry moves the
 * balance by its amount, and the last one leaves the account's balance, to the last digit.
 */
async function reconcile(currency: string, from: { id: number; balance: Decimal }) {
  const entries: Transaction[] = [];
  for await (const entry of client.ledger.iterateTransactions({ currency, limit: 50 })) {
    if (entry.id <= from.id) break;
    entries.unshift(entry);
  }
  let running = from.balance;
  for (const entry of entries) {
    running = running.plus(entry.gross_amount);
    if (!running.eq(entry.balance)) check(`${currency} entry ${entry.id} follows on`, false);
  }
  const account = (await client.accounts.balances()).find((a) => a.currency === currency);
  console.log(
    `${currency}: ${entries.map((e) => `${e.gross_amount} ${e.transaction_type}`).join(', ')}`,
  );
  check(
    `${currency} ${from.balance} + ${entries.length} entries = balance ${account?.balance}`,
    running.eq(account?.balance ?? Number.NaN),
  );
  return entries;
}

const product = await client.products.get(1);
const [base, quote] = [product.base_currency, product.quoted_currency];
const start = { base: await checkpoint(base), quote: await checkpoint(quote) };

// Bid one tick above the best bid, post-only: it rests at the head of the book, a maker.
const book = await client.products.priceLevels(product.id);
const price = decimal(book.buy_price_levels[0]?.[0] ?? 0)
  .plus(product.tick_size)
  .toFixed();
const bid = { product_id: product.id, side: 'buy', quantity: '0.01', price } as const;
const estimate = await client.fees.estimate({ ...bid, order_type: 'limit_post_only' });
const placed = await client.orders.create({ ...bid, order_type: 'limit_post_only' });
console.log(`bid ${bid.quantity} ${base} at ${price}: order ${placed.id} ${placed.status}`);

// Someone sells at market: the best bid, ours, fills. The bot asks until it sees the fill.
const { product_id, quantity } = bid;
await market.orders.create({ order_type: 'market', product_id, side: 'sell', quantity });
let order = await client.orders.get({ id: placed.id, withDetails: true });
for (const deadline = Date.now() + 10_000; order.status !== 'filled'; ) {
  if (Date.now() > deadline) throw new Error(`order ${order.id} is still ${order.status}`);
  await new Promise((resolve) => setTimeout(resolve, 200));
  order = await client.orders.get({ id: placed.id, withDetails: true });
}
const fills = order.executions ?? [];
console.log(`order ${order.id} filled: fill ids ${fills.map((f) => f.id).join(', ')}`);

// The same fills among the caller's own, which name the order they filled.
const mine = new Set<number>();
for await (const fill of client.executions.iterateMine({
  product_id: product.id,
  with_details: 1,
})) {
  if (String(fill.order_id) === String(order.id)) mine.add(fill.id);
  if (mine.size === fills.length) break;
}
check(
  'executions/me shows the same fills',
  fills.every((f) => mine.has(f.id)),
);

// Margin: a long position opened at market holds its margin until it is closed.
const opening = await client.orders.create({
  order_type: 'market',
  product_id,
  side: 'buy',
  quantity,
  trading_type: 'margin',
  leverage_level: 2,
});
const [position] = await client.trades.ofOrder(opening.id);
if (!position) throw new Error(`order ${opening.id} opened no position`);
await checkReserved(position.funding_currency, 'position', position.id, position.margin_used);
const closed = await client.trades.close(position.id);
console.log(
  `position ${closed.id} ${closed.status}: ${closed.open_price} to ${closed.close_price}`,
);

// A withdrawal holds its amount and fee: reserved, not spent, so it posts no entry yet.
const withdrawal = await client.withdrawals.crypto.create({
  currency: base,
  address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
  amount: '0.01',
});
const due = sum(withdrawal.amount, withdrawal.withdrawal_fee);
await checkReserved(base, 'withdrawal', withdrawal.id, due);

// The ledger since the start explains both balances; its entries name what made them.
const entries = [...(await reconcile(base, start.base)), ...(await reconcile(quote, start.quote))];
const against = (type: string, id: number) =>
  entries.filter((e) => e.source_object_type === type && e.source_object_id === id);
for (const fill of fills) {
  const traded = (currency: string) =>
    against('Execution', fill.id).find(
      (e) => e.transaction_type === 'trade' && e.currency === currency,
    );
  const [got, paid] = [traded(base)?.gross_amount ?? 0, traded(quote)?.gross_amount ?? 0];
  check(
    `fill ${fill.id}: ${got} ${base} for ${paid} ${quote}`,
    decimal(got).eq(fill.quantity) &&
      decimal(paid).eq(decimal(fill.quantity).times(fill.price).neg()),
  );
}
// The fees of its fills, in the currency the estimate named: one fill took the whole order,
// so they are the estimate to the digit, and the order's order_fee is their sum.
const [estimated] = estimate.fee_options.default;
const fees = fills
  .flatMap((fill) => against('Execution', fill.id))
  .filter((e) => e.transaction_type === 'trade_fee' && e.currency === estimated?.currency);
const charged = sum(0, ...fees.map((e) => e.gross_amount));
check(
  `order ${order.id}: fee ${charged} ${estimated?.currency}, estimated ${estimated?.amount}, order_fee ${order.order_fee}`,
  estimated !== undefined &&
    decimal(charged).eq(decimal(estimated.amount).neg()) &&
    decimal(order.order_fee).eq(decimal(charged).neg()),
);
// The P&L paid against the position is its close_pnl, and what the close's fills realized:
// the caller's margin fills newer than the opening order's.
const pnl = sum(0, ...against('Trade', closed.id).map((e) => e.gross_amount));
let realized = decimal(0);
for await (const fill of client.executions.iterateMine({ product_id, with_details: 1 })) {
  if (String(fill.order_id) === String(opening.id)) break;
  realized = realized.plus(fill.pnl ?? 0);
}
check(
  `position ${closed.id}: P&L ${pnl} in the ledger, ${closed.close_pnl} on the position, ${realized} in its fills`,
  decimal(pnl).eq(closed.close_pnl) && realized.eq(pnl),
);
// Its fees in the funding currency: the opening order's order_fee and the trade's close_fee.
// The spot bid's fee is in yen too: the fees counted are those of the other fills.
const opened = await client.orders.get({ id: opening.id });
const margin = position.funding_currency;
const spotFills = new Set(fills.map((fill) => fill.id));
const marginFees = sum(
  0,
  ...entries
    .filter((e) => e.transaction_type === 'trade_fee' && e.currency === margin)
    .filter((e) => !spotFills.has(Number(e.source_object_id)))
    .map((e) => e.gross_amount),
);
check(
  `position ${closed.id}: fees ${marginFees} ${margin} = ${opened.order_fee} to open + ${closed.close_fee} to close`,
  decimal(marginFees).neg().eq(decimal(opened.order_fee).plus(closed.close_fee)),
);

// Free what the withdrawal held, so that the demo balance is whole for the next run.
await client.withdrawals.crypto.cancel(withdrawal.id);
