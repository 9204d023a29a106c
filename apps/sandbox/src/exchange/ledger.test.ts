import {
  zCreateFiatAccountResponse,
  zGetMainAssetResponse,
  zGetReservedBalanceDetailsResponse,
  zListAccountBalancesResponse,
  zListBalanceHistoryResponse,
  zListCryptoAccountsResponse,
  zListFiatAccountsResponse,
  zListTransactionsResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoFees } from '../demo-market.js';
import { type Client, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import { balances, freshProduct, getOrder, place } from '../testing/trading.js';
import { houseUserId } from './ledger.js';

let sandbox: MemorySandbox;

beforeAll(async () => {
  sandbox = await memorySandbox();
});

const history = async (call: Client, query = '') =>
  valid(zListBalanceHistoryResponse, await call('GET', `/balance_history${query}`));

const houseEntries = (id: number) =>
  sandbox.sequencer.state.exchange.entriesByUser
    .of(houseUserId)
    .filter((entry) => entry.sourceObjectId === id);

describe('the ledger', () => {
  it('explains a new user’s balances with one funding entry each', async () => {
    const user = sandbox.addUser();
    const entries = await history(user.call, '?currency=JPY');
    expect(entries).toMatchObject([
      { amount: '100000000', balance: '100000000', source_action: 'funding' },
    ]);
    expect(entries[0]).toMatchObject({ source_object_type: null, source_object_id: null });
  });

  it('posts each side of a spot fill as trade entries, and its fee, against the execution', async () => {
    const product_id = await freshProduct(sandbox, demoFees);
    const [seller, buyer] = [sandbox.addUser(), sandbox.addUser()];
    await place(seller.call, { product_id, side: 'sell', price: '1425', quantity: '1.00000015' });
    await place(buyer.call, { product_id, side: 'buy', price: '1425', quantity: '1.00000015' });
    // The buyer took: it pays the taker fee on the value, in yen, every digit kept.
    const [fee, jpy] = await history(buyer.call, '?currency=JPY&limit=10');
    const [btc] = await history(buyer.call, '?currency=BTC');
    expect(jpy).toMatchObject({ amount: '-1425.00021375', balance: '99998574.99978625' });
    expect(btc).toMatchObject({
      amount: '1.00000015',
      balance: '11.00000015',
      source_action: 'trade',
    });
    expect(fee).toMatchObject({
      amount: '-2.137500320625',
      balance: '99998572.862285929375',
      source_action: 'trade_fee',
      source_object_type: 'Execution',
      source_object_id: btc?.source_object_id,
    });
    expect(jpy?.source_object_id).toBe(btc?.source_object_id);
    expect((await balances(buyer.call, 'JPY')).balance).toBe(fee?.balance);
    // The seller made: the maker fee, in the yen it received.
    const sold = await history(seller.call, '?currency=JPY&limit=10');
    expect(sold.map((entry) => entry.source_action)).toEqual(['trade_fee', 'trade', 'funding']);
    expect(sold[0]).toMatchObject({ amount: '-0.712500106875', balance: '100001424.287713643125' });
    // Both fees went to the house.
    const paid = houseEntries(Number(btc?.source_object_id)).map((entry) => [
      entry.currency,
      entry.amount.toFixed(),
    ]);
    expect(paid).toEqual([
      ['JPY', '2.137500320625'],
      ['JPY', '0.712500106875'],
    ]);
  });

  it('has a margin order hold its fee with its margin, so the fill never eats the hold', async () => {
    const product_id = await freshProduct(sandbox, {
      margin: true,
      takerFee: '0.01',
      makerFee: '0.01',
    });
    const trader = sandbox.addUser();
    const body = { product_id, leverage_level: 2, price: '100', quantity: '1' };
    await place(trader.call, { ...body, order_type: 'limit', side: 'buy', trading_type: 'margin' });
    // Margin 50 and the fee on 100 of notional, 1.
    expect((await balances(trader.call, 'JPY')).reserved).toBe('51');
    const seller = sandbox.addUser();
    await place(seller.call, { product_id, side: 'sell', price: '100', quantity: '1' });
    expect(await balances(trader.call, 'JPY')).toEqual({ balance: '99999999', reserved: '50' });
    const [fee] = await history(trader.call, '?currency=JPY&source_action=trade_fee');
    expect(fee).toMatchObject({ amount: '-1', balance: '99999999' });
  });

  it('has a spot buy hold its fee with its value, and refuses one the balance cannot pay for', async () => {
    const product_id = await freshProduct(sandbox, { takerFee: '0.01', makerFee: '0.005' });
    const buyer = sandbox.addUser();
    await place(buyer.call, { product_id, side: 'buy', price: '100', quantity: '1' });
    // The value, 100, and its fee at the higher of the two rates, 1.
    expect((await balances(buyer.call, 'JPY')).reserved).toBe('101');
    await place(sandbox.addUser().call, { product_id, side: 'sell', price: '100', quantity: '1' });
    // It rested, so it made: the maker fee, 0.5, in yen; the rest of the hold is let go.
    expect(await balances(buyer.call, 'JPY')).toEqual({ balance: '99999899.5', reserved: '0' });
    // A fresh user's 100,000,000 yen pay the value of a million at 100, not its fee as well.
    const refused = await sandbox.addUser().call('POST', '/orders', {
      body: { order_type: 'limit', product_id, side: 'buy', price: '100', quantity: '1000000' },
    });
    expect(refused).toMatchObject({
      status: 422,
      body: { errors: { user: ['not_enough_free_balance'] } },
    });
  });

  it('shows what holds a reserved balance: each live order and each open position', async () => {
    const product_id = await freshProduct(sandbox, { margin: true });
    const trader = sandbox.addUser();
    // Below the sell that fills the margin order, so it keeps resting.
    const resting = await place(trader.call, { product_id, price: '50', quantity: '0.5' });
    const body = { product_id, price: '100', quantity: '1', trading_type: 'margin' };
    const margin = await place(trader.call, { ...body, leverage_level: 2 });
    await place(sandbox.addUser().call, { product_id, side: 'sell', price: '100', quantity: '1' });
    const details = valid(
      zGetReservedBalanceDetailsResponse,
      await trader.call('GET', '/accounts/JPY/reserved_balance_details'),
    );
    expect(details).toEqual({
      currency: 'JPY',
      reserved_balance: '75',
      details: [
        { holder_type: 'order', id: resting.id, amount: '25' },
        {
          holder_type: 'position',
          id: (await getOrder(trader.call, margin.id)).trade_id,
          amount: '50',
        },
      ],
    });
    expect((await trader.call('GET', '/accounts/XYZ/reserved_balance_details')).status).toBe(404);
  });

  it('shows a withdrawal waiting as what holds its amount and fee, until it is cancelled', async () => {
    const user = sandbox.addUser();
    const details = async () =>
      valid(
        zGetReservedBalanceDetailsResponse,
        await user.call('GET', '/accounts/JPY/reserved_balance_details'),
      );
    const [bank] = (await user.call('GET', '/bank_accounts')).body as { id: number }[];
    const asked = await user.call('POST', '/withdrawals', {
      body: { withdrawal: { currency: 'JPY', amount: '1425', bank_account_id: bank?.id } },
    });
    const { id } = asked.body as { id: number };
    // 1,425 yen and the 300 yen fee.
    expect(await details()).toEqual({
      currency: 'JPY',
      reserved_balance: '1725',
      details: [{ holder_type: 'withdrawal', id, amount: '1725' }],
    });
    expect((await user.call('PUT', `/withdrawals/${id}/cancel`)).status).toBe(200);
    expect(await details()).toEqual({ currency: 'JPY', reserved_balance: '0', details: [] });
  });

  it('lists the entries as paged transactions, and the balances alone or valued in yen', async () => {
    const user = sandbox.addUser();
    const page = valid(
      zListTransactionsResponse,
      await user.call('GET', '/transactions?transaction_type=funding&limit=2&page=2'),
    );
    expect(page).toMatchObject({ current_page: 2, total_pages: 3 });
    expect(page.models.map((model) => model.transaction_type)).toEqual(['funding', 'funding']);
    const listed = valid(zListAccountBalancesResponse, await user.call('GET', '/accounts/balance'));
    expect(listed).toContainEqual({ currency: 'BTC', balance: '10' });
    // 10 BTC, 100 ETH, 100,000 XRP, 100,000,000 JPY and 1,000,000 USD at their yen rates.
    expect(valid(zGetMainAssetResponse, await user.call('GET', '/accounts/main_asset'))).toEqual({
      currency: 'JPY',
      total_amount: '398000000',
    });
    const fiat = valid(zListFiatAccountsResponse, await user.call('GET', '/fiat_accounts'));
    const crypto = valid(zListCryptoAccountsResponse, await user.call('GET', '/crypto_accounts'));
    expect(fiat.map((account) => account.currency)).toEqual(['JPY', 'USD']);
    expect(crypto.map((account) => account.currency)).toEqual(['BTC', 'ETH', 'XRP']);
  });

  it('opens an empty fiat account on asking, and answers one the caller has as it stands', async () => {
    const own = await memorySandbox();
    // A fiat currency no user holds yet: reference data, as a start reads it from the store.
    const { currencies } = own.sequencer.state.exchange;
    const usd = currencies.get('USD');
    if (!usd) throw new Error('the demo has no USD');
    currencies.set('EUR', { ...usd, code: 'EUR', name: 'Euro', symbol: '€' });
    const user = own.addUser();
    const open = (body: object) => user.call('POST', '/fiat_accounts', { body });
    const opened = valid(zCreateFiatAccountResponse, await open({ currency: 'EUR' }));
    expect(opened).toMatchObject({
      currency: 'EUR',
      balance: '0',
      reserved_balance: '0',
      currency_type: 'fiat',
      push_channel: `user_${user.userId}_account_eur`,
    });
    expect(valid(zCreateFiatAccountResponse, await open({ currency: 'EUR' })).id).toBe(opened.id);
    expect(valid(zCreateFiatAccountResponse, await open({ currency: 'USD' }))).toMatchObject({
      balance: '1000000',
    });
    const fiat = valid(zListFiatAccountsResponse, await user.call('GET', '/fiat_accounts'));
    expect(fiat.map((account) => account.currency)).toEqual(['JPY', 'USD', 'EUR']);
    for (const [body, errors] of [
      [{ currency: 'BTC' }, { currency: ['not_a_fiat_currency'] }],
      [{ currency: 'GBP' }, { currency: ['not_found'] }],
      [{ currency: 'EUR', name: 'savings' }, { name: ['unknown_field'] }],
      [{}, { currency: ['required'] }],
    ] as const) {
      const refused = await open(body);
      expect([refused.status, refused.body], JSON.stringify(body)).toEqual([422, { errors }]);
    }
    const after = valid(zListFiatAccountsResponse, await user.call('GET', '/fiat_accounts'));
    expect(after.map((account) => account.currency)).toEqual(['JPY', 'USD', 'EUR']);
  });
});
