import {
  zGetTradingAccountResponse,
  zListTradingAccountsResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { startTestSandbox, valid } from '../test-support.js';
import {
  balances,
  freshProduct,
  getOrder,
  openPosition,
  place,
  storedTrading,
  type TradingSandbox,
  tradeAt,
} from '../testing/trading.js';

let sandbox: RunningSandbox;
let trading: TradingSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  trading = storedTrading(sandbox);
});
afterAll(() => sandbox.close());

describe('a margin position in the store', () => {
  it('is read back holding its margin, and its take profit still closes it', async () => {
    const { product_id, trader, takeProfit } = await openPosition(trading, {
      side: 'buy',
      leverage: 2,
      takeProfit: '120',
      stopLoss: '80',
    });
    await sandbox.sequencer.reload();
    expect((await balances(trader.call, 'JPY')).reserved).toBe('50');
    await tradeAt(trading, product_id, '120');
    const buyer = await trading.addUser();
    await place(buyer.call, { product_id, price: '120', quantity: '1' });
    await sandbox.sequencer.reload();
    expect((await getOrder(trader.call, takeProfit.id)).status).toBe('filled');
    expect(await balances(trader.call, 'JPY')).toEqual({
      balance: '100000020',
      reserved: '0',
    });
  });
});

describe('a trading account in the store', () => {
  it('keeps the leverage level set on it, which orders still take', async () => {
    const product_id = await freshProduct(trading, { margin: true });
    const trader = await trading.addUser();
    const listed = valid(
      zListTradingAccountsResponse,
      await trader.call('GET', '/trading_accounts'),
    );
    const account = listed.find((entry) => entry.product_id === product_id);
    const path = `/trading_accounts/${account?.id}`;
    const set = { body: { trading_account: { leverage_level: 4 } } };
    expect((await trader.call('PUT', path, set)).status).toBe(200);
    await sandbox.sequencer.reload();
    expect(valid(zGetTradingAccountResponse, await trader.call('GET', path))).toMatchObject({
      id: account?.id,
      leverage_level: 4,
    });
    const order = await place(trader.call, { product_id, price: '100', trading_type: 'margin' });
    expect(order.leverage_level).toBe(4);
  });
});
