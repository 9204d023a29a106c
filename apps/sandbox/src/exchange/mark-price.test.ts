import { zListTradesResponse } from '@exchange-kit/contract/exchange/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { D } from '../state/exchange-state.js';
import { type Client, valid } from '../test-support.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import { openPosition, tradeAt } from '../testing/trading.js';

let sandbox: MemorySandbox;

beforeAll(async () => {
  sandbox = await memorySandbox();
});

const pnlOf = async (call: Client, id: number) => {
  const trades = valid(zListTradesResponse, await call('GET', '/trades?status=open'));
  const trade = trades.models.find((model) => model.id === id);
  return { open_pnl: trade?.open_pnl, pnl: trade?.pnl };
};

/** What `POST /test/products/{product_id}/mark_price` does to the state. */
const moveMark = (productId: number, price: string) =>
  sandbox.sequencer.run((journal) => journal.exchange.setMarkPrice(productId, new D(price)));

describe('the mark price of positions', () => {
  it('values open positions at a moved mark until the next fill of the product', async () => {
    const { product_id, trader, tradeId } = await openPosition(sandbox, {
      side: 'buy',
      leverage: 2,
      takeProfit: '200',
      stopLoss: '10',
    });
    expect(await pnlOf(trader.call, tradeId)).toEqual({ open_pnl: '0', pnl: '0' });

    await moveMark(product_id, '112.5');
    // A long of 1 BTC opened at 100, marked at 112.5.
    expect(await pnlOf(trader.call, tradeId)).toEqual({ open_pnl: '12.5', pnl: '12.5' });

    await tradeAt(sandbox, product_id, '90');
    expect(await pnlOf(trader.call, tradeId)).toEqual({ open_pnl: '-10', pnl: '-10' });
  });
});
