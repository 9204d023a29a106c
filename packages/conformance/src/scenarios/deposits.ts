import { Decimal } from 'decimal.js';
import { bodyOf, expectStatus, failAt, sameDecimal } from '../engine/context.js';
import { Skip } from '../engine/outcome.js';
import { callerUserId } from './borrowing.js';
import { arrayOf } from './ledger.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { firstCrypto } from './withdrawals.js';

type Row = Record<string, unknown>;

const credits = 'DEPOSIT-CREDITS';

/**
 * A depositable crypto currency and an amount of it with as many digits as its precision
 * takes (up to eight): a listed amount cut short shows.
 */
async function depositOf(context: ScenarioContext): Promise<{ currency: string; amount: string }> {
  const { currency } = await firstCrypto(context, 'depositable');
  if (!currency) throw new Skip('no crypto currency takes deposits');
  const digits = Math.min(Number(currency.assets_precision) || 0, 8);
  const amount = digits === 0 ? '1' : `0.${'12345678'.slice(0, digits)}`;
  return { currency: String(currency.currency), amount };
}

async function balanceOf(context: ScenarioContext, currency: string): Promise<Decimal> {
  const read = await context.caller.call('listAccountBalances', {});
  const row = arrayOf(read).find((each) => each.currency === currency);
  return new Decimal(String(row?.balance ?? 0));
}

async function fundInfosOf(context: ScenarioContext, currency: string) {
  const call = await context.caller.call('listFundInfos', {
    query: { currency, limit: '1000' },
  });
  expectStatus(call, 200);
  return { call, rows: (bodyOf(call).models as Row[] | undefined) ?? [] };
}

async function checkCredited(context: ScenarioContext): Promise<string> {
  const { currency, amount } = await depositOf(context);
  const userId = await callerUserId(context);
  const known = new Set((await fundInfosOf(context, currency)).rows.map((row) => String(row.id)));
  const before = await balanceOf(context, currency);
  await context.adapter.creditDeposit(context.adapterContext, { userId, currency, amount });

  const listed = await fundInfosOf(context, currency);
  const deposit = listed.rows.find((row) => !known.has(String(row.id)));
  if (!deposit) failAt(`no new ${currency} deposit is listed`, listed.call, 'the deposit received');
  if (deposit.currency !== currency || !sameDecimal(deposit.amount, amount)) {
    failAt(
      `deposit ${String(deposit.id)} is listed as ${String(deposit.amount)} ${String(deposit.currency)}`,
      listed.call,
      `${amount} ${currency}, every digit`,
    );
  }
  const after = await balanceOf(context, currency);
  if (!after.eq(before.plus(amount))) {
    failAt(
      `${currency} balance ${after.toFixed()} after a deposit of ${amount}, ${before.toFixed()} before`,
      listed.call,
      `${before.plus(amount).toFixed()}`,
    );
  }
  const history = await context.caller.call('listBalanceHistory', {
    query: { currency, limit: '10' },
  });
  const [newest] = arrayOf(history);
  const named =
    newest?.source_action === 'funding' &&
    newest.source_object_type === 'FundInfo' &&
    String(newest.source_object_id) === String(deposit.id) &&
    sameDecimal(newest.amount, amount) &&
    sameDecimal(newest.balance, after.toFixed());
  if (!named) {
    failAt(
      `the newest ${currency} entry is ${String(newest?.source_action)} ${String(newest?.amount)} of ${String(newest?.source_object_type)} ${String(newest?.source_object_id)}, balance ${String(newest?.balance)}`,
      history,
      `funding ${amount} of FundInfo ${String(deposit.id)}, balance ${after.toFixed()}`,
    );
  }
  const filtered = await checkFiltered(context, userId, currency);
  return `deposit ${String(deposit.id)} of ${amount} ${currency}: listed, credited and in the ledger${filtered}`;
}

/**
 * A deposit of another crypto currency, when one takes deposits: the first currency's list
 * leaves it out. Says what it checked, or nothing when no other currency takes deposits.
 */
async function checkFiltered(
  context: ScenarioContext,
  userId: string,
  currency: string,
): Promise<string> {
  const listed = await context.caller.call('listCurrencies');
  const other = (Array.isArray(listed.json) ? (listed.json as Row[]) : []).find(
    (each) =>
      each.currency_type === 'crypto' && each.depositable === true && each.currency !== currency,
  )?.currency;
  if (typeof other !== 'string') return '';
  const amount = '1';
  await context.adapter.creditDeposit(context.adapterContext, { userId, currency: other, amount });
  const listedOne = await fundInfosOf(context, currency);
  const stray = listedOne.rows.find((row) => row.currency !== currency);
  if (stray) {
    failAt(
      `GET /fund_infos?currency=${currency} lists deposit ${String(stray.id)} of ${String(stray.amount)} ${String(stray.currency)}`,
      listedOne.call,
      `the ${currency} deposits alone`,
    );
  }
  return `; a deposit of ${amount} ${other} stays out of its list`;
}

const deposits: Scenario = {
  name: 'a received deposit listed, credited and explained by the ledger',
  profile: 'withdrawals',
  covers: [credits],
  needs: [{ step: 'creditDeposit' }],
  // It reads the whole balance of a currency, which orders beside it would move.
  exclusive: true,
  async run(context) {
    await context.evidence.check(credits, () => checkCredited(context));
  },
};

export const depositScenarios: Scenario[] = [deposits];
