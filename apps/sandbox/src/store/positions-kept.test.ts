import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { startTestSandbox } from '../test-support.js';
import {
  balances,
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
