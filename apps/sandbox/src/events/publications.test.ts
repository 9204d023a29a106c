import { channelPayloadSchemas } from '@exchange-kit/contract/events/schemas';
import { describe, expect, it } from 'vitest';
import { shownLevels } from '../exchange/market.js';
import { moveMarkPrice } from '../exchange/position-exits.js';
import { D } from '../state/records.js';
import type { Publisher } from '../state/sequencer.js';
import { memorySandbox } from '../testing/memory-sandbox.js';
import * as trading from '../testing/trading.js';
import { type Publication, publicationsOf } from './publications.js';

/** Keeps every publication of each call, a channel's state rendered as the call left it. */
const capture = (sent: Publication[]): Publisher => ({
  decided(journal) {
    const publications = publicationsOf(journal, Date.now(), () => true);
    for (const publication of publications) publication.data ??= publication.render();
    return () => sent.push(...publications);
  },
});

describe('the price ladder channels', () => {
  it('carry the best levels the book shows, not every level of a deep book', async () => {
    const sandbox = await memorySandbox();
    const product_id = await trading.freshProduct(sandbox);
    const sent: Publication[] = [];
    sandbox.sequencer.publisher = capture(sent);
    const buyer = sandbox.addUser();
    for (let n = 0; n < shownLevels + 5; n++) {
      await trading.place(buyer.call, { product_id, price: String(1000 + n) });
    }
    const ladder = sent.filter((p) => /^price_ladders_cash_\w+_buy$/.test(p.channel)).at(-1);
    const levels = channelPayloadSchemas.priceLadders.parse(JSON.parse(ladder?.data ?? 'null'));
    expect(levels).toHaveLength(shownLevels);
    // The best first: the last order placed is the highest bid.
    expect(levels[0]?.[0]).toBe(String(1000 + shownLevels + 4));
  });
});

describe('a liquidation', () => {
  it('publishes what it changed: the exits it cancelled and the account it paid from', async () => {
    const sandbox = await memorySandbox();
    const { product_id, trader, takeProfit, stopLoss } = await trading.openPosition(sandbox, {
      side: 'buy',
      leverage: 2,
      takeProfit: '200',
      stopLoss: '10',
    });
    const sent: Publication[] = [];
    sandbox.sequencer.publisher = capture(sent);
    await sandbox.sequencer.run((journal) =>
      moveMarkPrice(journal, product_id, new D('70'), sandbox.now()),
    );
    const orders = sent
      .filter((p) => p.channel === 'user_account_jpy_orders')
      .map((p) => channelPayloadSchemas.userOrders.parse(JSON.parse(p.data ?? 'null')));
    expect(orders.map(({ id, status }) => ({ id, status }))).toEqual([
      { id: takeProfit.id, status: 'cancelled' },
      { id: stopLoss.id, status: 'cancelled' },
    ]);
    const account = sent.find((p) => p.channel === `user_${trader.userId}_account_jpy`);
    // Closed at 70, the long of 1 opened at 100 lost 30, and its margin is released.
    expect(JSON.parse(account?.data ?? 'null')).toMatchObject({
      balance: '99999970',
      reserved_balance: '0',
    });
  });
});

describe('a mark price moved', () => {
  it('publishes the product with its new mark, though no position is reached', async () => {
    const sandbox = await memorySandbox();
    const product_id = await trading.freshProduct(sandbox, {
      quote: 'USD',
      perpetual: true,
      perpetualEnabled: true,
    });
    await trading.tradeAt(sandbox, product_id, '100');
    const sent: Publication[] = [];
    sandbox.sequencer.publisher = capture(sent);
    await sandbox.sequencer.run((journal) =>
      moveMarkPrice(journal, product_id, new D('104'), sandbox.now()),
    );
    const product = sent.find((p) => p.channel === `product_cash_btcusd_${product_id}`);
    expect(JSON.parse(product?.data ?? 'null')).toMatchObject({
      mark_price: '104',
      last_traded_price: '100',
    });
  });
});
