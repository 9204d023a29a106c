import { describe, expect, it } from 'vitest';
import { type ChannelName, channelAddress, channelOf, channels, protocolEvents } from './events.js';
import { channelPayloadSchemas, protocolPayloadSchemas } from './events-schemas.js';
import { zOrder } from './generated/exchange.zod.js';

const names = Object.keys(channels) as ChannelName[];

/** An address of each channel, its parameters filled with values of the kind they take. */
const example = (name: ChannelName) => {
  const values: Record<string, string> = {
    pair: 'btcjpy',
    productId: '5',
    side: 'buy',
    currency: 'jpy',
    userId: '4321',
  };
  const parameters = Object.fromEntries(
    channels[name].parameters.map((parameter) => [parameter, values[parameter] ?? 'x1']),
  );
  return { address: channelAddress(name, parameters as never), parameters };
};

describe('channel addresses', () => {
  it('fill the template, codes lowercase', () => {
    expect(channelAddress('productCash', { pair: 'BTCJPY', productId: 5 })).toBe(
      'product_cash_btcjpy_5',
    );
    expect(channelAddress('userAccount', { userId: 4321, currency: 'JPY' })).toBe(
      'user_4321_account_jpy',
    );
    expect(channelAddress('priceLadders', { pair: 'ethbtc', side: 'sell' })).toBe(
      'price_ladders_cash_ethbtc_sell',
    );
  });

  it('refuse a value that could name another channel', () => {
    expect(() => channelAddress('userOrders', { currency: 'jpy_orders' })).toThrow(/currency/);
    expect(() => channelAddress('executionsCash', { pair: '' })).toThrow(/pair/);
  });

  it.each(names)('read back to the one channel they name: %s', (name) => {
    const { address, parameters } = example(name);
    expect(channelOf(address)).toEqual({ name, parameters });
    const matching = names.filter((other) => channelOf(address)?.name === other);
    expect(matching).toEqual([name]);
  });

  it('name no channel when they are not one', () => {
    for (const address of ['product_cash_btcjpy', 'user_account_jpy', 'private-x', '']) {
      expect(channelOf(address)).toBeUndefined();
    }
  });
});

describe('payloads', () => {
  it('are the REST interface schemas themselves', () => {
    expect(channelPayloadSchemas.userOrders).toBe(zOrder);
    expect(Object.keys(channelPayloadSchemas).sort()).toEqual([...names].sort());
  });

  it('validate what a channel carries, and refuse what it does not', () => {
    const level = channelPayloadSchemas.priceLadders;
    expect(level.safeParse([['100.5', '2']]).success).toBe(true);
    expect(level.safeParse([['100.5']]).success).toBe(false);
  });

  it('of the protocol have schemas under the names of its events', () => {
    expect(Object.keys(protocolPayloadSchemas).sort()).toEqual(Object.keys(protocolEvents).sort());
    expect(protocolEvents.subscribe).toBe('pusher:subscribe');
    const subscribe = protocolPayloadSchemas.subscribe;
    expect(subscribe.safeParse({ channel: 'executions_cash_btcjpy' }).success).toBe(true);
    expect(subscribe.safeParse({ channel: 'x', auth: '' }).success).toBe(true);
    expect(subscribe.safeParse({ channel: 'x', extra: 1 }).success).toBe(false);
    const established = protocolPayloadSchemas.connectionEstablished;
    expect(established.safeParse({ socket_id: '1.2', activity_timeout: 120 }).success).toBe(true);
    expect(established.safeParse({ socket_id: 'a', activity_timeout: 120 }).success).toBe(false);
  });
});
