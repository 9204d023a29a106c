import {
  zCancelCryptoWithdrawalResponse,
  zCancelFiatWithdrawalResponse,
  zCreateCryptoWithdrawalResponse,
  zCreateFiatWithdrawalResponse,
  zListBalanceHistoryResponse,
  zListBankAccountsResponse,
  zListCryptoNetworksResponse,
  zListCryptoWithdrawalsResponse,
  zListFiatWithdrawalsResponse,
  zListFundInfosResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { NotFound } from '../handling/errors.js';
import { D, type Withdrawal } from '../state/records.js';
import { type Client, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import { balances } from '../testing/trading.js';
import { creditDeposit } from './deposits.js';
import { houseUserId } from './ledger.js';
import { moveWithdrawal } from './withdrawal-moves.js';

let sandbox: MemorySandbox;
beforeAll(async () => {
  sandbox = await memorySandbox();
});

const btcAddress = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

const withdrawBtc = (call: Client, fields: Record<string, unknown> = {}) =>
  call('POST', '/crypto_withdrawals', {
    body: { crypto_withdrawal: { currency: 'BTC', address: btcAddress, amount: '1', ...fields } },
  });

/** What test control does: the exchange moves a withdrawal on. */
const move = (id: number, to: Withdrawal['state']) =>
  sandbox.sequencer.run((journal) => moveWithdrawal(journal, 'exchange', id, to, sandbox.now()));

describe('crypto withdrawals', () => {
  it('hold amount plus the currency fee until processed, then take both, the fee to the house', async () => {
    const { call } = sandbox.addUser();
    const withdrawal = valid(zCreateCryptoWithdrawalResponse, await withdrawBtc(call));
    expect(withdrawal).toMatchObject({
      state: 'pending',
      amount: '1',
      withdrawal_fee: '0.0005',
      network: 'BTC',
    });
    expect(await balances(call, 'BTC')).toEqual({ balance: '10', reserved: '1.0005' });

    await move(withdrawal.id, 'processing');
    expect(await balances(call, 'BTC')).toEqual({ balance: '10', reserved: '1.0005' });
    const house = () =>
      sandbox.sequencer.state.exchange.account(houseUserId, 'BTC')?.balance.toFixed() ?? '0';
    const before = house();
    await move(withdrawal.id, 'processed');
    expect(await balances(call, 'BTC')).toEqual({ balance: '8.9995', reserved: '0' });
    // The amount leaves the exchange; the fee stays in it, paid to the house.
    expect(new D(house()).minus(before).toFixed()).toBe('0.0005');

    const listed = valid(zListCryptoWithdrawalsResponse, await call('GET', '/crypto_withdrawals'));
    expect(listed.models).toEqual([
      expect.objectContaining({ id: withdrawal.id, state: 'processed' }),
    ]);
    expect(listed.models[0]?.transaction_hash).toMatch(/^sandbox/);
    const ledger = valid(
      zListBalanceHistoryResponse,
      await call('GET', '/balance_history?currency=BTC'),
    );
    const source = { source_object_type: 'Withdrawal', source_object_id: withdrawal.id };
    expect(ledger.slice(0, 2)).toEqual([
      expect.objectContaining({
        amount: '-0.0005',
        balance: '8.9995',
        source_action: 'withdrawal_fee',
        ...source,
      }),
      expect.objectContaining({
        amount: '-1',
        balance: '9',
        source_action: 'withdrawal',
        ...source,
      }),
    ]);
  });

  it('cancel only while pending, releasing the hold; later the state is named', async () => {
    const { call } = sandbox.addUser();
    const first = valid(zCreateCryptoWithdrawalResponse, await withdrawBtc(call));
    const cancelled = valid(
      zCancelCryptoWithdrawalResponse,
      await call('PUT', `/crypto_withdrawal/${first.id}/cancel`),
    );
    expect(cancelled.state).toBe('cancelled');
    expect(await balances(call, 'BTC')).toEqual({ balance: '10', reserved: '0' });
    expect(await call('PUT', `/crypto_withdrawal/${first.id}/cancel`)).toMatchObject({
      status: 422,
      body: { errors: { state: ['cancelled'] } },
    });

    const second = valid(zCreateCryptoWithdrawalResponse, await withdrawBtc(call));
    await move(second.id, 'processing');
    expect(await call('PUT', `/crypto_withdrawal/${second.id}/cancel`)).toMatchObject({
      status: 422,
      body: { errors: { state: ['processing'] } },
    });
    expect(await balances(call, 'BTC')).toEqual({ balance: '10', reserved: '1.0005' });
  });

  it('declined from pending or processing, releasing the hold', async () => {
    const { call } = sandbox.addUser();
    const pending = valid(zCreateCryptoWithdrawalResponse, await withdrawBtc(call));
    const processing = valid(zCreateCryptoWithdrawalResponse, await withdrawBtc(call));
    await move(processing.id, 'processing');
    await move(pending.id, 'declined');
    await move(processing.id, 'declined');
    expect(await balances(call, 'BTC')).toEqual({ balance: '10', reserved: '0' });
    const declined = valid(
      zListCryptoWithdrawalsResponse,
      await call('GET', '/crypto_withdrawals?state=declined&currency=BTC'),
    );
    expect(declined.models.map((row) => row.id)).toEqual([processing.id, pending.id]);
  });

  it('move only as a row of the state table allows', async () => {
    const { call } = sandbox.addUser();
    const withdrawal = valid(zCreateCryptoWithdrawalResponse, await withdrawBtc(call));
    await expect(move(withdrawal.id, 'processed')).rejects.toMatchObject({
      errors: { state: ['pending'] },
    });
    await move(withdrawal.id, 'cancelled');
    await expect(move(withdrawal.id, 'declined')).rejects.toMatchObject({
      errors: { state: ['cancelled'] },
    });
    expect(await balances(call, 'BTC')).toEqual({ balance: '10', reserved: '0' });
  });

  it.each([
    [{ amount: '0.001' }, 'amount', 'valid_amount'],
    [{ amount: '0' }, 'amount', 'valid_amount'],
    [{ amount: '-1' }, 'amount', 'valid_amount'],
    [{ amount: '0.000000001' }, 'amount', 'valid_amount'],
    [{ address: 'short' }, 'address', 'valid_address'],
    [{ address: 'bc1q ar0srrr7xfkvy5l643lydnw9re59gtz' }, 'address', 'valid_address'],
    [{ currency: 'JPY' }, 'currency', 'not_a_crypto_currency'],
    [{ currency: 'DOGE' }, 'currency', 'not_found'],
    [{ network: 'ERC20' }, 'network', 'not_a_network_of_the_currency'],
    [{ amount: '10' }, 'user', 'not_enough_free_balance'],
  ])('refuse %j naming %s: %s, holding nothing', async (fields, field, code) => {
    const { call } = sandbox.addUser();
    expect(await withdrawBtc(call, fields)).toMatchObject({
      status: 422,
      body: { errors: { [field]: [code] } },
    });
    expect(await balances(call, 'BTC')).toEqual({ balance: '10', reserved: '0' });
    const listed = valid(zListCryptoWithdrawalsResponse, await call('GET', '/crypto_withdrawals'));
    expect(listed.models).toEqual([]);
  });

  it('refuse an amount over 32 characters, zeros included, naming it', async () => {
    const { call } = sandbox.addUser();
    // Past every decimal's bound of 100 too: named by the tighter one alone.
    for (const amount of [`0.002${'0'.repeat(40)}`, '9'.repeat(40), '9'.repeat(5000)]) {
      expect(await withdrawBtc(call, { amount })).toMatchObject({
        status: 422,
        body: { errors: { 'crypto_withdrawal.amount': ['longer_than_32_characters'] } },
      });
    }
    expect(await balances(call, 'BTC')).toEqual({ balance: '10', reserved: '0' });
  });

  it('refuse a key the body does not declare, naming it', async () => {
    const { call } = sandbox.addUser();
    const answer = await withdrawBtc(call, { fee: '0' });
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.body)).toContain('fee');
  });

  it('page newest first, and name the one network of a currency', async () => {
    const { call } = sandbox.addUser();
    const ids: number[] = [];
    for (let n = 0; n < 3; n++) {
      ids.push(valid(zCreateCryptoWithdrawalResponse, await withdrawBtc(call)).id);
    }
    const page = valid(
      zListCryptoWithdrawalsResponse,
      await call('GET', '/crypto_withdrawals?limit=2&page=2'),
    );
    expect(page).toMatchObject({ current_page: 2, total_pages: 2 });
    expect(page.models.map((row) => row.id)).toEqual([ids[0]]);
    const networks = valid(
      zListCryptoNetworksResponse,
      await call('GET', '/crypto_withdrawals/crypto_networks?currency=XRP'),
    );
    expect(networks).toEqual([
      expect.objectContaining({ network: 'XRP', withdrawal_fee: '0.15', minimum_withdrawal: '20' }),
    ]);
  });

  it('name the network Ether goes on ERC20, and take it in either case', async () => {
    const { call } = sandbox.addUser();
    const networks = valid(
      zListCryptoNetworksResponse,
      await call('GET', '/crypto_withdrawals/crypto_networks?currency=ETH'),
    );
    expect(networks.map((each) => each.network)).toEqual(['ERC20']);
    const address = '0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c';
    for (const network of ['ERC20', 'erc20']) {
      const asked = await call('POST', '/crypto_withdrawals', {
        body: { crypto_withdrawal: { currency: 'ETH', address, amount: '0.1', network } },
      });
      expect(asked).toMatchObject({ status: 200, body: { network: 'ERC20', state: 'pending' } });
    }
  });

  it('carry a memo only to a network that takes one: XRP its destination tag', async () => {
    const { call } = sandbox.addUser();
    const networks = async (currency: string) =>
      valid(
        zListCryptoNetworksResponse,
        await call('GET', `/crypto_withdrawals/crypto_networks?currency=${currency}`),
      ).map((network) => network.memo_supported);
    expect([await networks('XRP'), await networks('BTC')]).toEqual([[true], [false]]);
    const tagged = valid(
      zCreateCryptoWithdrawalResponse,
      await call('POST', '/crypto_withdrawals', {
        body: {
          crypto_withdrawal: {
            currency: 'XRP',
            address: 'rEb8TK3gBgk5auZkwc6sHnwrGVJH8DuaLh',
            amount: '20',
            memo_type: 'destination_tag',
            memo_value: '12345',
          },
        },
      }),
    );
    expect(tagged).toMatchObject({ memo_type: 'destination_tag', memo_value: '12345' });
    for (const field of ['memo_value', 'payment_id']) {
      const refused = await withdrawBtc(call, { [field]: '12345' });
      expect([refused.status, refused.body]).toEqual([
        422,
        { errors: { [field]: ['not_supported_by_the_network'] } },
      ]);
    }
    expect(await balances(call, 'BTC')).toEqual({ balance: '10', reserved: '0' });
  });

  it("cannot touch another user's withdrawal", async () => {
    const owner = sandbox.addUser();
    const other = sandbox.addUser();
    const withdrawal = valid(zCreateCryptoWithdrawalResponse, await withdrawBtc(owner.call));
    expect((await other.call('PUT', `/crypto_withdrawal/${withdrawal.id}/cancel`)).status).toBe(
      404,
    );
    const listed = valid(
      zListCryptoWithdrawalsResponse,
      await other.call('GET', '/crypto_withdrawals'),
    );
    expect(listed.models).toEqual([]);
    // The exchange moves any user's, by the same move: an id no withdrawal has is not found.
    await expect(move(999_999, 'declined')).rejects.toBeInstanceOf(NotFound);
    expect((await move(withdrawal.id, 'declined')).state).toBe('declined');
  });
});

describe('fiat withdrawals', () => {
  it('go to the bank account the user has, and hold, cancel and release as crypto does', async () => {
    const { call } = sandbox.addUser();
    const [bank] = valid(zListBankAccountsResponse, await call('GET', '/bank_accounts'));
    expect(bank).toMatchObject({ currency: 'JPY', bank_name: 'Sandbox Bank' });
    const body = { withdrawal: { currency: 'JPY', amount: '10000', bank_account_id: bank?.id } };
    const withdrawal = valid(
      zCreateFiatWithdrawalResponse,
      await call('POST', '/withdrawals', { body }),
    );
    expect(withdrawal).toMatchObject({ state: 'pending', withdrawal_fee: '300' });
    expect(await balances(call, 'JPY')).toEqual({ balance: '100000000', reserved: '10300' });
    // The two kinds are apart: a fiat withdrawal is no crypto one.
    expect((await call('PUT', `/crypto_withdrawal/${withdrawal.id}/cancel`)).status).toBe(404);
    valid(zCancelFiatWithdrawalResponse, await call('PUT', `/withdrawals/${withdrawal.id}/cancel`));
    expect(await balances(call, 'JPY')).toEqual({ balance: '100000000', reserved: '0' });
    const listed = valid(zListFiatWithdrawalsResponse, await call('GET', '/withdrawals'));
    expect(listed.models).toEqual([expect.objectContaining({ state: 'cancelled' })]);
  });

  it("refuse a bank account that is not the caller's, or not of the currency, naming it", async () => {
    const { call, userId } = sandbox.addUser();
    const body = { withdrawal: { currency: 'JPY', amount: '10000', bank_account_id: 1 } };
    expect(await call('POST', '/withdrawals', { body })).toMatchObject({
      status: 422,
      body: { errors: { bank_account_id: ['not_found'] } },
    });
    // The caller's one bank account holds JPY: USD is not paid out to it.
    const usd = { withdrawal: { currency: 'USD', amount: '100', bank_account_id: userId } };
    expect(await call('POST', '/withdrawals', { body: usd })).toMatchObject({
      status: 422,
      body: { errors: { currency: ['not_the_bank_account_currency'] } },
    });
    expect(await balances(call, 'USD')).toMatchObject({ reserved: '0' });
    expect(valid(zListFiatWithdrawalsResponse, await call('GET', '/withdrawals')).models).toEqual(
      [],
    );
  });
});

describe('deposits', () => {
  it('credit the balance and are listed among the fund infos', async () => {
    const { call, userId } = sandbox.addUser();
    await sandbox.sequencer.run((journal) =>
      creditDeposit(journal, { userId, currency: 'ETH', amount: '2.5' }, sandbox.now()),
    );
    expect(await balances(call, 'ETH')).toEqual({ balance: '102.5', reserved: '0' });
    const [funding] = valid(
      zListBalanceHistoryResponse,
      await call('GET', '/balance_history?currency=ETH'),
    );
    expect(funding).toMatchObject({
      amount: '2.5',
      balance: '102.5',
      source_action: 'funding',
      source_object_type: 'FundInfo',
    });
    const infos = valid(zListFundInfosResponse, await call('GET', '/fund_infos?currency=ETH'));
    expect(infos.models).toEqual([
      expect.objectContaining({ currency: 'ETH', amount: '2.5', state: 'received' }),
    ]);
    const other = valid(zListFundInfosResponse, await call('GET', '/fund_infos?currency=BTC'));
    expect(other.models).toEqual([]);
  });

  it.each([
    [{ amount: '0.000000001' }, 'amount', 'too_many_decimals'],
    [{ currency: 'JPY', amount: '0.5' }, 'amount', 'too_many_decimals'],
    [{ amount: '-1' }, 'amount', 'valid_amount'],
    [{ currency: 'DOGE' }, 'currency', 'not_found'],
    [{ userId: houseUserId }, 'user_id', 'not_found'],
  ])('refuse %j naming %s, crediting nothing', async (fields, field, code) => {
    const { call, userId } = sandbox.addUser();
    const credit = sandbox.sequencer.run((journal) =>
      creditDeposit(journal, { userId, currency: 'BTC', amount: '1', ...fields }, sandbox.now()),
    );
    await expect(credit).rejects.toMatchObject({ errors: { [field]: [code] } });
    expect(await balances(call, 'BTC')).toEqual({ balance: '10', reserved: '0' });
  });
});
