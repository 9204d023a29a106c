import { channelAddress, channels } from '@exchange-kit/contract/events';
import { channelPayloadSchemas } from '@exchange-kit/contract/events/schemas';
import { describe, expect, it } from 'vitest';
import { placeOrder } from '../exchange/orders.js';
import { memorySandbox } from '../testing/memory-sandbox.js';
import * as trading from '../testing/trading.js';
import { hubPublisher } from './events-server.js';
import { EventHub, subscriptionKey } from './hub.js';

/** A subscriber that keeps what it is sent, read back as Pusher frames. */
function listener(hub: EventHub, key: string) {
  const frames: Buffer[] = [];
  hub.subscribe(key, { bufferedAmount: 0, send: (frame) => frames.push(frame), drop() {} });
  return () =>
    frames.map((frame) => JSON.parse(frame.toString()) as { event: string; data: string });
}

async function watchedProduct() {
  const sandbox = await memorySandbox();
  const product_id = await trading.freshProduct(sandbox);
  const hub = new EventHub();
  sandbox.sequencer.publisher = hubPublisher(hub, sandbox.now);
  const buyer = sandbox.addUser();
  const pair = 'btcjpy';
  const book = listener(hub, channelAddress('priceLadders', { pair, side: 'buy' }));
  const orders = listener(
    hub,
    subscriptionKey(channelAddress('userOrders', { currency: 'jpy' }), buyer.userId),
  );
  const bid = (price: string) =>
    sandbox.sequencer.run((journal) =>
      placeOrder(
        journal,
        buyer.userId,
        { order_type: 'limit', product_id, side: 'buy', price, quantity: '0.01' },
        sandbox.now(),
      ),
    );
  return { sandbox, buyer, product_id, book, orders, bid };
}

/** Two users of a fresh margin product, the hub told of every stored call. */
async function marginTraders() {
  const sandbox = await memorySandbox();
  const hub = new EventHub();
  sandbox.sequencer.publisher = hubPublisher(hub, sandbox.now);
  const product_id = await trading.freshProduct(sandbox, { margin: true });
  return { hub, product_id, trader: sandbox.addUser(), counterpart: sandbox.addUser() };
}

const levels = (frame: { data: string } | undefined) =>
  channelPayloadSchemas.priceLadders.parse(JSON.parse(frame?.data ?? 'null'));

describe('publishing to the hub', () => {
  it('sends a side of the book once per write when writes are stored one at a time', async () => {
    const { book, orders, bid } = await watchedProduct();
    for (const price of ['100', '101', '102']) await bid(price);
    expect(book().map((frame) => levels(frame).length)).toEqual([1, 2, 3]);
    expect(orders()).toHaveLength(3);
  });

  it('sends every change of a call that changes more orders than a call may spread', async () => {
    const { sandbox, buyer, product_id, book, orders } = await watchedProduct();
    const count = 130_000;
    await sandbox.sequencer.run((journal) => {
      for (let n = 1; n <= count; n++) {
        // Each a new best bid, which the book takes at its top.
        const price = String(n);
        const bid = {
          order_type: 'limit',
          product_id,
          side: 'buy',
          price,
          quantity: '0.0001',
        } as const;
        placeOrder(journal, buyer.userId, bid, sandbox.now());
      }
    });
    expect(book()).toHaveLength(1);
    const sent = orders();
    expect(sent).toHaveLength(count);
    expect(JSON.parse(sent.at(-1)?.data ?? 'null')).toMatchObject({ price: String(count) });
  });

  it('sends a side of the book once for writes stored together, as the last left it', async () => {
    expect(channels.priceLadders.carriesState).toBe(true);
    expect(channels.userOrders.carriesState).toBe(false);
    const { book, orders, bid } = await watchedProduct();
    // Decided in one turn, so stored in one batch.
    await Promise.all(['100', '101', '102', '103'].map(bid));
    expect(book()).toHaveLength(1);
    expect(levels(book()[0]).map(([price]) => price)).toEqual(['103', '102', '101', '100']);
    // Each order is a change of its own: all four reach their owner, in order.
    const prices = orders().map((frame) => (JSON.parse(frame.data) as { price: string }).price);
    expect(prices.map(Number)).toEqual([100, 101, 102, 103]);
  });

  it("sends the user's position on every change, each to its owner alone", async () => {
    const { hub, product_id, trader, counterpart } = await marginTraders();
    const address = channelAddress('userTrades', { currency: 'jpy' });
    const trades = listener(hub, subscriptionKey(address, trader.userId));
    const others = listener(hub, subscriptionKey(address, counterpart.userId));
    const margin = { product_id, price: '100', quantity: '1', trading_type: 'margin' };
    await trading.place(trader.call, { ...margin, side: 'buy', leverage_level: 2 });
    await trading.place(counterpart.call, {
      product_id,
      side: 'sell',
      price: '100',
      quantity: '1',
    });
    const [opened] = trades().map((frame) =>
      channelPayloadSchemas.userTrades.parse(JSON.parse(frame.data)),
    );
    expect(opened).toMatchObject({ status: 'open', side: 'long', quantity: '1' });
    // Closing sells at market: a bid to take.
    await trading.place(counterpart.call, { product_id, price: '100', quantity: '1' });
    const closing = await trader.call('PUT', `/trades/${opened?.id}/close`);
    expect(closing.status).toBe(200);
    const shown = trades().map((frame) =>
      channelPayloadSchemas.userTrades.parse(JSON.parse(frame.data)),
    );
    expect(shown.map(({ id, status }) => ({ id, status }))).toEqual([
      { id: opened?.id, status: 'open' },
      { id: opened?.id, status: 'closed' },
    ]);
    expect(others()).toEqual([]);
  });

  it("sends the user's trading account as each change leaves it, to its owner alone", async () => {
    const { hub, product_id, trader, counterpart } = await marginTraders();
    const listed = await trader.call('GET', '/trading_accounts');
    const account = (
      listed.body as { id: number; product_id: number; pusher_channel: string }[]
    ).find((shown) => shown.product_id === product_id);
    const address = channelAddress('tradingAccount', { tradingAccountId: account?.id ?? 0 });
    expect(account?.pusher_channel).toBe(address);
    const own = listener(hub, subscriptionKey(address, trader.userId));
    // The same name filed under another user is another user's stream: it hears nothing.
    const other = listener(hub, subscriptionKey(address, counterpart.userId));
    const shown = () =>
      own().map((frame) => channelPayloadSchemas.tradingAccount.parse(JSON.parse(frame.data)));

    const levels = await trader.call('PUT', `/trading_accounts/${account?.id}`, {
      body: { trading_account: { leverage_level: 2 } },
    });
    expect(levels.status).toBe(200);
    expect(shown().map(({ leverage_level }) => leverage_level)).toEqual([2]);

    await trading.place(trader.call, {
      product_id,
      side: 'buy',
      price: '100',
      quantity: '1',
      trading_type: 'margin',
      leverage_level: 2,
    });
    await trading.place(counterpart.call, {
      product_id,
      side: 'sell',
      price: '100',
      quantity: '1',
    });
    const opened = shown().at(-1);
    expect(opened).toMatchObject({ id: account?.id, position: '1', margin: '50' });
    expect(other()).toEqual([]);
  });
});
