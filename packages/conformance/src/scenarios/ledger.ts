import { Decimal } from 'decimal.js';
import type { OrderRef } from '../engine/adapter.js';
import { bodyOf, expectStatus, failAt, sameDecimal } from '../engine/context.js';
import { Failure, type RecordedCall, Skip } from '../engine/outcome.js';
import { ownFillsOf } from './executions.js';
import { filledOrder } from './orders.js';
import type { Scenario, ScenarioContext } from './scenario.js';

type Row = Record<string, unknown>;

const explained = 'LEDGER-EXPLAINS-BALANCE';
const detailed = 'RESERVED-IS-DETAILED';
const paged = 'LEDGER-PAGES-WALK';

/** The rows of an answer that is a plain list (the balance history), or the check fails. */
export function arrayOf(call: RecordedCall): Row[] {
  expectStatus(call, 200);
  if (!Array.isArray(call.json)) failAt(`${call.operationId} answered no list`, call, 'a list');
  return call.json as Row[];
}

/** The entries of `entries` that name the object of `type` with `id` as their source. */
export const naming = (entries: Row[], type: string, id: unknown): Row[] =>
  entries.filter(
    (entry) => entry.source_object_type === type && String(entry.source_object_id) === String(id),
  );

/** What `entries` move the balance by, summed. */
export const amountOf = (entries: Row[]): Decimal =>
  entries.reduce((sum, entry) => sum.plus(String(entry.amount)), new Decimal(0));

/** The most entries one page of the ledger holds: a full page may leave older ones out. */
const pageLimit = 1000;

/**
 * The caller's ledger entries of `currency` and `sourceAction`, newest first: an entry of
 * another currency or action fails the check at hand, naming the filter it slipped past.
 */
export async function entriesOf(context: ScenarioContext, currency: string, sourceAction: string) {
  const call = await context.caller.call('listBalanceHistory', {
    query: { currency, source_action: sourceAction, limit: String(pageLimit) },
  });
  const entries = arrayOf(call);
  const stray = entries.find(
    (entry) => entry.currency !== currency || entry.source_action !== sourceAction,
  );
  if (stray) {
    failAt(
      `GET /balance_history?currency=${currency}&source_action=${sourceAction} answered entry ${String(stray.id)}, ${String(stray.currency)} ${String(stray.source_action)}`,
      call,
      `entries of ${currency} and ${sourceAction} alone`,
    );
  }
  return entries;
}

const sum = (values: unknown[]) =>
  values.reduce<Decimal>((total, value) => total.plus(String(value)), new Decimal(0));

/**
 * Each entry of `currency` in `entries` (newest first) holds the balance of the one before it
 * plus its own amount: an amount or a balance that is off (a fee counted in a trade's balance,
 * a trade net of its fee) breaks the chain at that entry. When the answer holds the whole of
 * the currency's history, its first entry starts from nothing.
 */
function checkChained(history: RecordedCall, entries: Row[], currency: string): void {
  const chain = entries.filter((entry) => entry.currency === currency);
  const whole = entries.length < pageLimit;
  chain.forEach((entry, n) => {
    const before = chain[n + 1];
    if (before === undefined && !whole) return;
    const start = before === undefined ? '0' : String(before.balance);
    let expected: string;
    try {
      expected = new Decimal(start).plus(String(entry.amount)).toFixed();
    } catch {
      expected = 'a decimal';
    }
    if (!sameDecimal(entry.balance, expected)) {
      const after = before === undefined ? 'from nothing' : `after entry ${String(before.id)}`;
      failAt(
        `${currency}: entry ${String(entry.id)} (${String(entry.source_action)} ${String(entry.amount)}) says balance ${String(entry.balance)}, ${after}`,
        history,
        `${expected}: the balance before it plus its amount`,
      );
    }
  });
}

/**
 * The balance history split at the time of its newest entry (`entries`, newest first, each
 * with its `timestamp` in Unix seconds): from that time on it holds the entries made then,
 * up to a millisecond before it none of them, and each holds only entries on its side.
 */
async function checkTimeWindow(context: ScenarioContext, entries: Row[]): Promise<void> {
  const newest = entries[0];
  if (!newest) return;
  const at = (entry: Row) => new Decimal(String(entry.timestamp));
  const split = at(newest);
  const before = split.minus('0.001');
  const madeThen = entries.filter((entry) => at(entry).eq(split));
  const windows: { filter: string; value: Decimal; holds: (time: Decimal) => boolean }[] = [
    { filter: 'timestamp_gte', value: split, holds: (time) => time.gte(split) },
    { filter: 'timestamp_lte', value: before, holds: (time) => time.lte(before) },
  ];
  for (const { filter, value, holds } of windows) {
    const call = await context.caller.call('listBalanceHistory', {
      query: { [filter]: value.toFixed(), limit: String(pageLimit) },
    });
    const answered = arrayOf(call);
    const stray = answered.find((entry) => !holds(at(entry)));
    const ids = new Set(answered.map((entry) => String(entry.id)));
    const missing = holds(split) ? madeThen.filter((entry) => !ids.has(String(entry.id))) : [];
    if (stray || missing.length > 0) {
      failAt(
        stray
          ? `GET /balance_history?${filter}=${value.toFixed()} answered entry ${String(stray.id)} of ${String(stray.timestamp)}`
          : `GET /balance_history?${filter}=${value.toFixed()} leaves out entry ${String(missing[0]?.id)} of ${split.toFixed()}`,
        call,
        `the entries made ${filter === 'timestamp_gte' ? 'at or after' : 'at or before'} ${value.toFixed()} alone, all of them`,
      );
    }
  }
}

async function checkExplained(context: ScenarioContext, order: OrderRef): Promise<string> {
  const fills = (await ownFillsOf(context, order)).mine.map((row) => String(row.id));
  const history = await context.caller.call('listBalanceHistory', {
    query: { limit: String(pageLimit) },
  });
  const entries = arrayOf(history);
  const currencies = new Set<string>();
  for (const fill of fills) {
    const of = naming(entries, 'Execution', fill);
    const trades = of.filter((entry) => entry.source_action === 'trade');
    const fees = of.filter((entry) => entry.source_action === 'trade_fee');
    if (trades.length < 2 || fees.length < 1) {
      failAt(
        `fill ${fill}: ${trades.length} trade and ${fees.length} trade_fee entries`,
        history,
        'a trade entry in each currency swapped and a trade_fee entry',
      );
    }
    for (const entry of of) currencies.add(String(entry.currency));
  }
  const accounts = await context.caller.call('listAccountBalances', {});
  const balances = arrayOf(accounts);
  for (const currency of currencies) {
    const newest = entries.find((entry) => entry.currency === currency);
    const account = balances.find((row) => row.currency === currency);
    if (!sameDecimal(newest?.balance, account?.balance)) {
      failAt(
        `${currency}: the newest entry says ${String(newest?.balance)}, the account ${String(account?.balance)}`,
        accounts,
        'the newest entry has the balance',
      );
    }
  }
  // A full page holds only the newest entries: the filtered ones older than it are not in it.
  const full = entries.length >= pageLimit;
  const oldest = Math.min(...entries.map((entry) => Number(entry.id)));
  for (const currency of currencies) {
    checkChained(history, entries, currency);
    // The filters answer the same entries, and those alone.
    const fees = (await entriesOf(context, currency, 'trade_fee')).filter(
      (entry) => !full || Number(entry.id) >= oldest,
    );
    const expected = entries.filter(
      (entry) => entry.currency === currency && entry.source_action === 'trade_fee',
    );
    if (fees.length !== expected.length) {
      failAt(
        `GET /balance_history?currency=${currency}&source_action=trade_fee answered ${fees.length} entries, the unfiltered history ${expected.length}`,
        history,
        'the same entries',
      );
    }
  }
  // The older list pages the same entries.
  const fees = entries.filter(
    (entry) =>
      entry.source_action === 'trade_fee' && fills.includes(String(entry.source_object_id)),
  );
  const listed = await context.caller.call('listTransactions', {
    query: { transaction_type: 'trade_fee', limit: '200' },
  });
  expectStatus(listed, 200);
  const models = (bodyOf(listed).models as Row[] | undefined) ?? [];
  const stray = models.find((row) => row.transaction_type !== 'trade_fee');
  if (stray) {
    failAt(
      `GET /transactions?transaction_type=trade_fee answered entry ${String(stray.id)}, a ${String(stray.transaction_type)}`,
      listed,
      'trade_fee entries alone',
    );
  }
  const ids = new Set(models.map((row) => String(row.id)));
  const missing = fees.filter((entry) => !ids.has(String(entry.id)));
  if (missing.length > 0) {
    failAt(
      `${missing.length} trade_fee entries are not in the transactions`,
      listed,
      'the same entries',
    );
  }
  await checkTimeWindow(context, entries);
  // Every balance valued in one currency: read for its shape, which the response check holds.
  expectStatus(await context.caller.call('getMainAsset', {}), 200);
  return `${fills.length} fill(s) explained in ${[...currencies].join(', ')}`;
}

/** The ids of one page of the caller's ledger (`GET /transactions`), held to its limit. */
async function transactionsPage(context: ScenarioContext, limit: number, page?: number) {
  const query = { limit: String(limit), ...(page === undefined ? {} : { page: String(page) }) };
  const call = await context.caller.call('listTransactions', { query });
  expectStatus(call, 200);
  const ids = ((bodyOf(call).models as Row[] | undefined) ?? []).map((row) => String(row.id));
  const asked = `limit=${limit}${page === undefined ? '' : `&page=${page}`}`;
  if (ids.length > limit) {
    failAt(`GET /transactions?${asked} answered ${ids.length} entries`, call, `at most ${limit}`);
  }
  if (new Set(ids).size !== ids.length) {
    failAt(`GET /transactions?${asked} holds an entry twice: [${ids}]`, call, 'each entry once');
  }
  return { call, ids };
}

async function checkPages(context: ScenarioContext): Promise<string> {
  const three = await transactionsPage(context, 3);
  if (three.ids.length < 3) throw new Skip(`the caller has ${three.ids.length} ledger entries`);
  const walked: string[] = [];
  const walkedPages: RecordedCall[] = [];
  for (const page of [1, 2, 3]) {
    const one = await transactionsPage(context, 1, page);
    walked.push(...one.ids);
    walkedPages.push(one.call);
    if (one.ids[0] !== three.ids[page - 1]) {
      failAt(
        `page ${page} of one entry is [${one.ids}], the page of three [${three.ids}]`,
        one.call,
        `[${three.ids[page - 1]}], entry ${page} of the page of three`,
      );
    }
  }
  await checkPageNumbers(context, three.call, walkedPages);
  return `pages 1-3 of one entry walked the page of three: [${walked}]`;
}

/**
 * Each page says which it is and how many there are: the entries over its limit, rounded up.
 * The entries are counted on a page of the largest limit, while it holds them all.
 */
async function checkPageNumbers(
  context: ScenarioContext,
  three: RecordedCall,
  ones: RecordedCall[],
): Promise<void> {
  const all = await transactionsPage(context, pageLimit);
  const total = all.ids.length < pageLimit ? all.ids.length : undefined;
  const pages: [RecordedCall, number, number][] = [
    [three, 1, 3],
    ...ones.map((call, n): [RecordedCall, number, number] => [call, n + 1, 1]),
  ];
  for (const [call, page, limit] of pages) {
    const body = bodyOf(call);
    const asked = `GET /transactions?limit=${limit}${call === three ? '' : `&page=${page}`}`;
    if (Number(body.current_page) !== page) {
      failAt(`${asked} says current_page ${String(body.current_page)}`, call, `${page}`);
    }
    if (total !== undefined && Number(body.total_pages) !== Math.ceil(total / limit)) {
      failAt(
        `${asked} says total_pages ${String(body.total_pages)}, of ${total} entries`,
        call,
        `${Math.ceil(total / limit)}: the entries over the limit, rounded up`,
      );
    }
  }
}

/** The order's quantity doubled by an edit: its hold among the reserved details doubles. */
async function checkHoldFollowsEdit(
  context: ScenarioContext,
  order: OrderRef,
  held: { currency: string; amount: Decimal },
): Promise<void> {
  const read = await context.caller.call('getOrder', { path: { order_id: String(order.id) } });
  expectStatus(read, 200);
  const quantity = new Decimal(String(bodyOf(read).quantity)).times(2).toFixed();
  const edited = await context.caller.call('editOrder', {
    path: { order_id: String(order.id) },
    body: { quantity },
  });
  expectStatus(edited, 200);
  const details = await context.caller.call('getReservedBalanceDetails', {
    path: { currency: held.currency },
  });
  expectStatus(details, 200);
  const now = ((bodyOf(details).details as Row[] | undefined) ?? []).find(
    (detail) => detail.holder_type === 'order' && String(detail.id) === String(order.id),
  );
  const doubled = held.amount.times(2);
  if (!now || !new Decimal(String(now.amount)).eq(doubled)) {
    failAt(
      `order ${order.id}, its quantity doubled to ${quantity} by an edit, holds ${String(now?.amount)} ${held.currency}, ${held.amount.toFixed()} before`,
      details,
      `its hold doubled, ${doubled.toFixed()}`,
    );
  }
}

async function checkDetailed(context: ScenarioContext): Promise<string> {
  const order = await context.liveOrder({});
  const accounts = [
    ...arrayOf(await context.caller.call('listFiatAccounts', {})),
    ...arrayOf(await context.caller.call('listCryptoAccounts', {})),
  ];
  let holding: { currency: string; amount: Decimal } | undefined;
  for (const account of accounts) {
    const currency = String(account.currency);
    const read = await context.caller.call('getReservedBalanceDetails', { path: { currency } });
    expectStatus(read, 200);
    const body = bodyOf(read);
    const details = (body.details as Row[] | undefined) ?? [];
    const total = sum(details.map((detail) => detail.amount)).toFixed();
    if (
      !sameDecimal(total, body.reserved_balance) ||
      !sameDecimal(body.reserved_balance, account.reserved_balance)
    ) {
      failAt(
        `${currency}: details sum to ${total}, reserved_balance ${String(body.reserved_balance)}, the account's ${String(account.reserved_balance)}`,
        read,
        'the three equal',
      );
    }
    const held = details.find(
      (detail) => detail.holder_type === 'order' && String(detail.id) === String(order.id),
    );
    if (held) holding = { currency, amount: new Decimal(String(held.amount)) };
  }
  if (!holding) throw new Failure(`live order ${order.id} holds no reserved balance`, {});
  await checkHoldFollowsEdit(context, order, holding);
  // Opening a fiat account the caller has answers it: read for its shape, which the response
  // check holds, without opening one the run would leave behind.
  const fiat = accounts.find((account) => account.currency_type === 'fiat');
  if (fiat) {
    const opened = await context.caller.call('createFiatAccount', {
      body: { currency: String(fiat.currency) },
    });
    expectStatus(opened, 200);
  }
  return `${accounts.length} reserved balances detailed, order ${order.id} among the holders`;
}

const ledger: Scenario = {
  name: 'a fill and a live order read back in the ledger and the reserved details',
  profile: 'orders',
  covers: [explained, detailed, paged],
  // The newest entry's balance and the sum of the reserved details are of the whole account:
  // another scenario's order in between would move them under the check.
  exclusive: true,
  async run(context) {
    try {
      const order = await filledOrder(context);
      await context.evidence.check(explained, () => checkExplained(context, order));
      await context.evidence.check(paged, () => checkPages(context));
    } catch (error) {
      if (!(error instanceof Skip)) throw error;
      for (const requirementId of [explained, paged]) {
        context.evidence.record({
          requirementId,
          outcome: 'skip',
          message: `no filled order: ${error.message}`,
        });
      }
    }
    await context.evidence.check(detailed, () => checkDetailed(context));
  },
};

export const ledgerScenarios: Scenario[] = [ledger];
