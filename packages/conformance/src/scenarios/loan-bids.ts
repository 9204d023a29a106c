import { Decimal } from 'decimal.js';
import { bodyOf, expectStatus, failAt, type SpecClient, sameDecimal } from '../engine/context.js';
import { Skip } from '../engine/outcome.js';
import type { Scenario, ScenarioContext } from './scenario.js';

type Row = Record<string, unknown>;

const reserves = 'LOAN-BID-RESERVES';
// Small enough for any funded account, in whole units of every crypto currency's precision.
const quantity = new Decimal('0.01');

/** A crypto currency whose free balance covers the bid, or a Skip when the caller has none. */
export async function fundedCurrency(context: ScenarioContext): Promise<string> {
  const read = await context.caller.call('listCryptoAccounts', {});
  expectStatus(read, 200);
  const accounts = Array.isArray(read.json) ? (read.json as Row[]) : [];
  const funded = accounts.find((account) =>
    new Decimal(String(account.balance))
      .minus(String(account.reserved_balance))
      .gte(quantity.times(2)),
  );
  if (!funded) throw new Skip('no crypto account has a free balance to lend');
  return String(funded.currency);
}

/** The caller's reserved balance of `currency` (or `trader`'s), and what holds it. */
export async function reservedOf(
  context: ScenarioContext,
  currency: string,
  trader: SpecClient = context.caller,
) {
  const read = await trader.call('getReservedBalanceDetails', { path: { currency } });
  expectStatus(read, 200);
  const body = bodyOf(read);
  return {
    read,
    reserved: new Decimal(String(body.reserved_balance)),
    details: (body.details as Row[] | undefined) ?? [],
  };
}

/** The caller's loan bids of `currency` (or `trader`'s), and the one with `id` among them. */
export async function listedBid(
  context: ScenarioContext,
  currency: string,
  id: string,
  trader: SpecClient = context.caller,
) {
  const listed = await trader.call('listLoanBids', { query: { currency, limit: '1000' } });
  expectStatus(listed, 200);
  const rows = (bodyOf(listed).models as Row[] | undefined) ?? [];
  return { listed, row: rows.find((bid) => String(bid.id) === id) };
}

const rate = '0.0001';

/**
 * A bid of another funded crypto currency, when there is one, stays out of the list of
 * `currency`'s bids, which lists that currency's alone; it is closed after.
 */
async function checkListedByCurrency(context: ScenarioContext, currency: string): Promise<void> {
  const read = await context.caller.call('listCryptoAccounts', {});
  expectStatus(read, 200);
  const other = ((Array.isArray(read.json) ? read.json : []) as Row[]).find(
    (account) =>
      account.currency !== currency &&
      new Decimal(String(account.balance))
        .minus(String(account.reserved_balance))
        .gte(quantity.times(2)),
  )?.currency;
  if (typeof other !== 'string') return;
  const created = await context.caller.call('createLoanBid', {
    body: { loan_bid: { currency: other, rate, quantity: quantity.toFixed() } },
  });
  expectStatus(created, 200, `200 with a bid of ${other}, live`);
  const id = String(bodyOf(created).id);
  try {
    const listed = await context.caller.call('listLoanBids', {
      query: { currency, limit: '1000' },
    });
    expectStatus(listed, 200);
    const stray = ((bodyOf(listed).models as Row[] | undefined) ?? []).find(
      (bid) => bid.currency !== currency,
    );
    if (stray) {
      failAt(
        `GET /loan_bids?currency=${currency} lists bid ${String(stray.id)} of ${String(stray.currency)}`,
        listed,
        `the caller's ${currency} bids alone`,
      );
    }
  } finally {
    await context.caller.call('closeLoanBid', { path: { loan_bid_id: id } });
  }
}

async function checkReserves(context: ScenarioContext): Promise<string> {
  const currency = await fundedCurrency(context);
  const before = await reservedOf(context, currency);
  const created = await context.caller.call('createLoanBid', {
    body: { loan_bid: { currency, rate, quantity: quantity.toFixed() } },
  });
  expectStatus(created, 200, '200 with the loan bid, live');
  const id = String(bodyOf(created).id);
  try {
    const live = await reservedOf(context, currency);
    if (!live.reserved.eq(before.reserved.plus(quantity))) {
      failAt(
        `${currency} reserved ${live.reserved.toFixed()} with bid ${id} live, ${before.reserved.toFixed()} before`,
        live.read,
        `reserved up by ${quantity.toFixed()}`,
      );
    }
    const shown = live.details.some(
      (detail) =>
        detail.holder_type === 'loan_bid' &&
        String(detail.id) === id &&
        new Decimal(String(detail.amount)).eq(quantity),
    );
    if (!shown) failAt(`bid ${id} is not among the holders`, live.read, 'holder_type loan_bid');
    const { listed, row } = await listedBid(context, currency, id);
    if (row?.status !== 'live') failAt(`bid ${id} is not listed live`, listed, 'listed live');
    for (const [field, asked] of [
      ['rate', rate],
      ['quantity', quantity.toFixed()],
    ] as const) {
      if (!sameDecimal(row?.[field], asked)) {
        failAt(`bid ${id} is listed with ${field} ${String(row?.[field])}`, listed, asked);
      }
    }
    await checkListedByCurrency(context, currency);
    // Nothing here is lent before the bid closes, so only the response's shape is judged
    // (RESPONSE-LIST-LOANS), on the loans of the currency the bid offers.
    await context.caller.call('listLoans', { query: { currency, limit: '1000' } });
  } finally {
    const closed = await context.caller.call('closeLoanBid', { path: { loan_bid_id: id } });
    expectStatus(closed, 200, '200 with the loan bid, closed');
    if (bodyOf(closed).status !== 'closed') failAt(`bid ${id} is not closed`, closed, 'closed');
  }
  const { listed, row } = await listedBid(context, currency, id);
  if (row !== undefined && row.status !== 'closed') {
    failAt(`bid ${id} is listed ${String(row.status)} once closed`, listed, 'closed');
  }
  const after = await reservedOf(context, currency);
  if (!after.reserved.eq(before.reserved)) {
    failAt(
      `${currency} reserved ${after.reserved.toFixed()} after bid ${id} closed, ${before.reserved.toFixed()} before`,
      after.read,
      'as before the bid',
    );
  }
  return `bid ${id} held ${quantity.toFixed()} ${currency}, shown and listed, released on close`;
}

const loanBids: Scenario = {
  name: 'a loan bid held while live and released when closed',
  profile: 'loans',
  // It reads the accounts and their reserved balance details, operations of the orders profile.
  requires: ['orders'],
  covers: [reserves],
  // It reads the whole reserved balance of a currency, which orders beside it would move.
  exclusive: true,
  async run(context) {
    await context.evidence.check(reserves, () => checkReserves(context));
  },
};

export const loanBidScenarios: Scenario[] = [loanBids];
