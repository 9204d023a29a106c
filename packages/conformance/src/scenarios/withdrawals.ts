import type { OAuthRequestIds } from '@exchange-kit/core/auth';
import { Decimal } from 'decimal.js';
import { bodyOf, expectStatus, sameDecimal } from '../engine/context.js';
import { Failure, fixtureFailed, type RecordedCall } from '../engine/outcome.js';
import { amountOf, naming } from './ledger.js';
import { approvedRequest } from './oauth-grant.js';
import type { Scenario, ScenarioContext } from './scenario.js';

type Row = Record<string, unknown>;
type Move = 'processing' | 'processed' | 'declined';

// An address of the shape most chains use; a server that checks addresses per chain names
// it `valid_address`, and the requirements then ERROR with that answer.
const address = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

/** One kind of withdrawal: its operations, the currency it is tried in and its body. */
interface Kind {
  name: 'crypto' | 'fiat';
  create: string;
  list: string;
  cancel: string;
  currency: string;
  amount: Decimal;
  fee: Decimal;
  body: Row;
}

interface Funds {
  balance: Decimal;
  reserved: Decimal;
}

/** The state of a withdrawal scenario: the grant that reads balances and what it made. */
interface Run {
  context: ScenarioContext;
  ids: OAuthRequestIds;
  made: { kind: Kind; id: number }[];
  /** Withdrawals moved or cancelled: none is left pending. */
  settled: Set<number>;
}

async function fundsOf(run: Run, currency: string): Promise<Funds> {
  const read = await run.context.caller.call('getAccounts', {
    auth: { kind: 'oauth', ids: run.ids },
  });
  expectStatus(read, 200, '200 with the accounts');
  const body = bodyOf(read);
  const accounts = [body.crypto_accounts, body.fiat_accounts].flatMap((list) =>
    Array.isArray(list) ? (list as Row[]) : [],
  );
  const account = accounts.find((entry) => entry.currency === currency);
  if (!account) {
    throw new Failure(`the accounts hold no ${currency} account`, { call: read });
  }
  return {
    balance: new Decimal(String(account.balance)),
    reserved: new Decimal(String(account.reserved_balance)),
  };
}

function expectFunds(what: string, seen: Funds, wanted: Funds, documented: string): void {
  if (seen.balance.equals(wanted.balance) && seen.reserved.equals(wanted.reserved)) return;
  throw new Failure(what, {
    received: `balance ${seen.balance.toFixed()}, reserved ${seen.reserved.toFixed()}`,
    documented: `${documented}: balance ${wanted.balance.toFixed()}, reserved ${wanted.reserved.toFixed()}`,
  });
}

/**
 * Requests a withdrawal of `kind`, which must be pending; with `shown`, it must also show the
 * amount asked and the currency's fee.
 */
async function request(run: Run, kind: Kind, shown = false): Promise<number> {
  const created = await run.context.caller.call(kind.create, { body: kind.body });
  expectStatus(created, 200, `200 with the ${kind.name} withdrawal, pending`);
  const body = bodyOf(created);
  if (body.state !== 'pending') {
    throw new Failure(`a new ${kind.name} withdrawal is ${String(body.state)}`, {
      received: `state ${JSON.stringify(body.state)}`,
      documented: 'state pending',
      call: created,
    });
  }
  const id = Number(body.id);
  run.made.push({ kind, id });
  // What it holds is what it says: the amount asked and the currency's fee, every digit.
  if (!shown) return id;
  for (const [field, asked] of [
    ['amount', kind.amount],
    ['withdrawal_fee', kind.fee],
  ] as const) {
    if (!sameDecimal(body[field], asked.toFixed())) {
      throw new Failure(
        `the new ${kind.name} withdrawal ${id} shows ${field} ${String(body[field])}`,
        {
          received: `${field} ${JSON.stringify(body[field])}`,
          documented: `${field} ${asked.toFixed()}, as asked and as the currency lists`,
          call: created,
        },
      );
    }
  }
  return id;
}

/**
 * Lists the withdrawals of `kind` (in `state`, where the list filters by it); the one with
 * `id` must be among them, in it, and a list filtered by state must hold no other state.
 */
async function expectListed(run: Run, kind: Kind, id: number, state: string): Promise<void> {
  const filtered = kind.name === 'crypto';
  const listed = await run.context.caller.call(kind.list, {
    query: { currency: kind.currency, ...(filtered ? { state } : {}), limit: '1000' },
  });
  expectStatus(listed, 200);
  const rows = (bodyOf(listed).models ?? []) as Row[];
  const other = filtered ? rows.find((entry) => entry.state !== state) : undefined;
  if (other) {
    throw new Failure(
      `the ${kind.name} withdrawals listed with state=${state} hold one ${String(other.state)}`,
      {
        received: `withdrawal ${String(other.id)}, state ${JSON.stringify(other.state)}`,
        documented: `only withdrawals in state ${state}`,
        call: listed,
      },
    );
  }
  const row = rows.find((entry) => Number(entry.id) === id);
  if (row?.state !== state) {
    throw new Failure(`the ${kind.name} withdrawal ${id} is not listed ${state}`, {
      received: row ? `state ${JSON.stringify(row.state)}` : 'not listed',
      documented: `listed with state ${state}`,
      call: listed,
    });
  }
}

/** The reserved balance details of `kind`'s currency list withdrawal `id` holding `held`. */
async function expectDetailed(run: Run, kind: Kind, id: number, held: Decimal): Promise<void> {
  const read = await run.context.caller.call('getReservedBalanceDetails', {
    path: { currency: kind.currency },
  });
  expectStatus(read, 200);
  const details = (bodyOf(read).details ?? []) as Row[];
  const holder = details.find(
    (detail) => detail.holder_type === 'withdrawal' && Number(detail.id) === id,
  );
  if (!holder || !new Decimal(String(holder.amount)).equals(held)) {
    throw new Failure(`the reserved details do not show the ${kind.name} withdrawal ${id}`, {
      received: holder ? `amount ${String(holder.amount)}` : 'not among the holders',
      documented: `holder_type withdrawal, id ${id}, amount ${held.toFixed()}`,
      call: read,
    });
  }
}

async function expectCancelRefused(run: Run, kind: Kind, id: number, state: string) {
  const refused = await run.context.caller.call(kind.cancel, { path: { withdrawal_id: id } });
  const documented = `422 {"errors": {"state": ["${state}"]}}`;
  expectStatus(refused, 422, documented);
  const named = (refused.json as { errors?: { state?: unknown } } | undefined)?.errors?.state;
  if (!Array.isArray(named) || named[0] !== state) {
    throw new Failure(`the refused cancel does not name the state ${state}`, {
      received: `422 ${refused.responseText.slice(0, 300)}`,
      documented,
      call: refused,
    });
  }
}

/**
 * The caller's ledger names processed withdrawal `id`: a `withdrawal` entry of its amount and
 * a `withdrawal_fee` entry of its fee, each taken from the balance.
 */
async function expectDebited(run: Run, kind: Kind, id: number): Promise<void> {
  const ledger = await run.context.caller.call('listBalanceHistory', {
    query: { currency: kind.currency, limit: '1000' },
  });
  expectStatus(ledger, 200);
  const named = naming((Array.isArray(ledger.json) ? ledger.json : []) as Row[], 'Withdrawal', id);
  const of = (action: string) => amountOf(named.filter((entry) => entry.source_action === action));
  const [amount, fee] = [of('withdrawal'), of('withdrawal_fee')];
  if (!amount.eq(kind.amount.neg()) || !fee.eq(kind.fee.neg())) {
    throw new Failure(`the ledger entries naming processed withdrawal ${id} do not debit it`, {
      received: `withdrawal ${amount.toFixed()}, withdrawal_fee ${fee.toFixed()} (${named.length} entries)`,
      documented: `withdrawal ${kind.amount.neg().toFixed()}, withdrawal_fee ${kind.fee.neg().toFixed()}`,
      call: ledger,
    });
  }
}

/** A withdrawal of half the currency's minimum is refused naming amount, and holds nothing. */
async function expectBelowMinimumRefused(run: Run, kind: Kind): Promise<void> {
  const before = await fundsOf(run, kind.currency);
  const half = kind.amount.div(2).toFixed();
  const [wrapper, fields] = Object.entries(kind.body)[0] as [string, Row];
  const refused = await run.context.caller.call(kind.create, {
    body: { [wrapper]: { ...fields, amount: half } },
  });
  const documented = '422 {"errors": {"amount": [...]}}';
  if (refused.status === 200) run.made.push({ kind, id: Number(bodyOf(refused).id) });
  expectStatus(refused, 422, documented);
  const named = (refused.json as { errors?: Row } | undefined)?.errors?.amount;
  if (!Array.isArray(named)) {
    throw new Failure(
      `a ${kind.name} withdrawal under the minimum is refused without naming amount`,
      {
        received: `422 ${refused.responseText.slice(0, 300)}`,
        documented,
        call: refused,
      },
    );
  }
  expectFunds(
    `the refused ${kind.name} withdrawal of ${half} moved funds`,
    await fundsOf(run, kind.currency),
    before,
    'as before the request',
  );
}

async function move(run: Run, id: number, state: Move): Promise<void> {
  await run.context.adapter.moveWithdrawal(run.context.adapterContext, id, state);
  run.settled.add(id);
}

/** A withdrawable currency of `type` the user has enough of for four withdrawals. */
/**
 * The first crypto currency the server lists as `flag` (withdrawable, depositable), and the
 * listing call, for the caller to refuse with when there is none.
 */
export async function firstCrypto(
  context: ScenarioContext,
  flag: 'withdrawable' | 'depositable',
): Promise<{ currency: Row | undefined; listed: RecordedCall }> {
  const listed = await context.caller.call('listCurrencies');
  const currencies = Array.isArray(listed.json) ? (listed.json as Row[]) : [];
  const currency = currencies.find(
    (each) => each.currency_type === 'crypto' && each[flag] === true,
  );
  return { currency, listed };
}

async function kindsOf(run: Run): Promise<Kind[]> {
  const { caller } = run.context;
  const currencies = await caller.call('listCurrencies');
  if (currencies.status !== 200 || !Array.isArray(currencies.json)) {
    throw fixtureFailed('listing the currencies', currencies, 'withdrawals');
  }
  const banks = await caller.call('listBankAccounts');
  if (banks.status !== 200 || !Array.isArray(banks.json)) {
    throw fixtureFailed('listing the bank accounts', banks, 'withdrawals');
  }
  // A bank account is paid out in its own currency: each fiat currency goes to one that holds it.
  const bankOf = (code: string) => (banks.json as Row[]).find((bank) => bank.currency === code);
  const kinds: Kind[] = [];
  for (const name of ['crypto', 'fiat'] as const) {
    for (const currency of currencies.json as Row[]) {
      if (currency.currency_type !== name || currency.withdrawable !== true) continue;
      const code = String(currency.currency);
      const amount = new Decimal(String(currency.minimum_withdrawal));
      const fee = new Decimal(String(currency.withdrawal_fee));
      const funds = await fundsOf(run, code).catch(() => undefined);
      if (!funds || funds.balance.minus(funds.reserved).lt(amount.plus(fee).times(4))) continue;
      const bank = bankOf(code);
      if (name === 'fiat' && !bank) continue;
      const fields = { currency: code, amount: amount.toFixed() };
      const body =
        name === 'crypto'
          ? { crypto_withdrawal: { ...fields, address } }
          : { withdrawal: { ...fields, bank_account_id: Number(bank?.id) } };
      const operations =
        name === 'crypto'
          ? ['createCryptoWithdrawal', 'listCryptoWithdrawals', 'cancelCryptoWithdrawal']
          : ['createFiatWithdrawal', 'listFiatWithdrawals', 'cancelFiatWithdrawal'];
      const [create, list, cancel] = operations as [string, string, string];
      kinds.push({ name, create, list, cancel, currency: code, amount, fee, body });
      if (name === 'crypto') {
        await caller.call('listCryptoNetworks', { query: { currency: code } });
      }
      break;
    }
  }
  await caller.call('listFundInfos');
  if (kinds.length === 0) {
    throw fixtureFailed(
      'finding a withdrawable currency the user holds',
      currencies,
      'withdrawals',
    );
  }
  return kinds;
}

const withdrawals: Scenario = {
  name: 'withdrawals held, cancelled while pending, processed and declined',
  profile: 'withdrawals',
  requires: ['oauth'],
  covers: [
    'WITHDRAWAL-RESERVES',
    'WITHDRAWAL-CANCEL-ONLY-PENDING',
    'WITHDRAWAL-PROCESSING',
    'WITHDRAWAL-PROCESSED',
    'WITHDRAWAL-DECLINED',
    'WITHDRAWAL-BELOW-MINIMUM',
  ],
  needs: [{ step: 'moveWithdrawal' }],
  // Its checks read the whole balance of a currency, which orders beside it would move.
  exclusive: true,
  async run(context) {
    const ids = await approvedRequest(context, `${context.runId}-withdrawals`);
    const run: Run = { context, ids, made: [], settled: new Set() };
    const kinds = await kindsOf(run);
    const held = (kind: Kind) => kind.amount.plus(kind.fee);
    const { evidence } = context;
    /** The withdrawals the checks below ended, each in the state it ended in. */
    const ended: { kind: Kind; id: number; state: 'processed' | 'declined' }[] = [];
    try {
      await evidence.check('WITHDRAWAL-RESERVES', async () => {
        for (const kind of kinds) {
          const before = await fundsOf(run, kind.currency);
          const id = await request(run, kind, true);
          const wanted = { balance: before.balance, reserved: before.reserved.plus(held(kind)) };
          expectFunds(
            `the ${kind.name} withdrawal ${id} does not hold amount plus fee`,
            await fundsOf(run, kind.currency),
            wanted,
            `reserved up by ${kind.amount.toFixed()} + ${kind.fee.toFixed()}`,
          );
          await expectListed(run, kind, id, 'pending');
          await expectDetailed(run, kind, id, held(kind));
        }
        return 'each kind held amount plus fee, shown in the reserved details, and was listed pending';
      });

      await evidence.check('WITHDRAWAL-BELOW-MINIMUM', async () => {
        for (const kind of kinds) await expectBelowMinimumRefused(run, kind);
        return 'half the minimum refused naming amount, nothing held';
      });

      await evidence.check('WITHDRAWAL-CANCEL-ONLY-PENDING', async () => {
        for (const kind of kinds) {
          const before = await fundsOf(run, kind.currency);
          const id = await request(run, kind);
          const cancelled = await context.caller.call(kind.cancel, {
            path: { withdrawal_id: id },
          });
          expectStatus(cancelled, 200, '200 with the withdrawal, cancelled');
          run.settled.add(id);
          if (bodyOf(cancelled).state !== 'cancelled') {
            throw new Failure('the cancelled withdrawal is not cancelled', { call: cancelled });
          }
          expectFunds(
            `the cancelled ${kind.name} withdrawal ${id} still holds funds`,
            await fundsOf(run, kind.currency),
            before,
            'as before the request',
          );
          await expectCancelRefused(run, kind, id, 'cancelled');
        }
        return 'cancelled while pending, released, then refused naming cancelled';
      });

      const processing: number[] = [];
      await evidence.check('WITHDRAWAL-PROCESSING', async () => {
        for (const kind of kinds) {
          const before = await fundsOf(run, kind.currency);
          const id = await request(run, kind);
          processing.push(id);
          await move(run, id, 'processing');
          await expectListed(run, kind, id, 'processing');
          await expectCancelRefused(run, kind, id, 'processing');
          expectFunds(
            `the processing ${kind.name} withdrawal ${id} does not hold amount plus fee`,
            await fundsOf(run, kind.currency),
            { balance: before.balance, reserved: before.reserved.plus(held(kind)) },
            'still held',
          );
        }
        return 'processing, still held, and no longer cancelled';
      });
      // Left processing, each would hold its amount and fee for good, run after run: declined,
      // they hold nothing. A server that refuses is judged by WITHDRAWAL-DECLINED below.
      for (const id of processing) await move(run, id, 'declined').catch(() => undefined);

      await evidence.check('WITHDRAWAL-PROCESSED', async () => {
        for (const kind of kinds) {
          const before = await fundsOf(run, kind.currency);
          const id = await request(run, kind);
          await move(run, id, 'processing');
          await move(run, id, 'processed');
          ended.push({ kind, id, state: 'processed' });
          await expectListed(run, kind, id, 'processed');
          expectFunds(
            `the processed ${kind.name} withdrawal ${id} did not take amount plus fee`,
            await fundsOf(run, kind.currency),
            { balance: before.balance.minus(held(kind)), reserved: before.reserved },
            'amount plus fee gone from the balance, nothing held',
          );
          await expectDebited(run, kind, id);
        }
        return 'processed: amount plus fee left the balance, in a withdrawal and a withdrawal_fee entry';
      });

      await evidence.check('WITHDRAWAL-DECLINED', async () => {
        for (const kind of kinds) {
          for (const from of ['pending', 'processing'] as const) {
            const before = await fundsOf(run, kind.currency);
            const id = await request(run, kind);
            if (from === 'processing') await move(run, id, 'processing');
            await move(run, id, 'declined');
            ended.push({ kind, id, state: 'declined' });
            await expectListed(run, kind, id, 'declined');
            expectFunds(
              `the ${kind.name} withdrawal ${id} declined from ${from} still holds funds`,
              await fundsOf(run, kind.currency),
              before,
              'as before the request',
            );
          }
        }
        return 'declined from pending and from processing, released';
      });

      // A withdrawal the exchange ended is cancelled no more than one its user cancelled.
      if (ended.length > 0) {
        await evidence.check('WITHDRAWAL-CANCEL-ONLY-PENDING', async () => {
          for (const { kind, id, state } of ended) {
            const before = await fundsOf(run, kind.currency);
            await expectCancelRefused(run, kind, id, state);
            expectFunds(
              `the refused cancel of the ${state} ${kind.name} withdrawal ${id} moved funds`,
              await fundsOf(run, kind.currency),
              before,
              'as before the cancel',
            );
          }
          const states = [...new Set(ended.map(({ state }) => state))].join(' and ');
          return `a cancel of a ${states} withdrawal refused naming its state, nothing moved`;
        });
      }
    } finally {
      // What a check left pending (one that stopped early, or could not move it) is cancelled.
      for (const { kind, id } of run.made) {
        if (run.settled.has(id)) continue;
        await context.caller.call(kind.cancel, { path: { withdrawal_id: id } });
      }
    }
  },
};

export const withdrawalScenarios: Scenario[] = [withdrawals];
