// The write mix beside a thousand websocket subscribers: what being connected, and being
// told of every change, costs the writes.

import { channelAddress, eventsPath } from '@exchange-kit/contract/events';
import type { Subscribers } from '../subscribers.js';
import { type Load, median, medianOf, seconds, writeRounds } from './load.js';
import { type Connection, writeMix } from './writes.js';

export const watchers = 1_000;
/** The public channels the write mix changes: product 1's book and the product itself. */
const watchedChannels = [
  channelAddress('priceLadders', { pair: 'btcjpy', side: 'buy' }),
  channelAddress('priceLadders', { pair: 'btcjpy', side: 'sell' }),
  channelAddress('productCash', { pair: 'btcjpy', productId: 1 }),
];
/** The same channels of a product the write mix leaves alone. */
const elsewhereChannels = [
  channelAddress('priceLadders', { pair: 'ethjpy', side: 'buy' }),
  channelAddress('priceLadders', { pair: 'ethjpy', side: 'sell' }),
  channelAddress('productCash', { pair: 'ethjpy', productId: 2 }),
];

export interface Watched {
  writes: Load;
  /** With `watchers` subscribers connected to another product's channels. */
  elsewhere: Load;
  /** With `watchers` subscribers of the channels the writes change. */
  watched: Load;
  /** Events the watching subscribers received per second of the watched rounds. */
  deliveries: number;
}

/**
 * The write mix, its rounds taken in turn with no subscriber, with `watchers` subscribers
 * connected to channels it does not change, and with `watchers` subscribers of the channels it
 * changes (in a process of their own), so all rows see the same store and machine: what being
 * connected costs the writes, and what publishing every change to every subscriber costs them.
 */
export async function writesBesideSubscribers(
  exchangeUrl: string,
  lanes: Connection[],
  subscribers: Subscribers,
): Promise<Watched> {
  const eventsUrl = `${exchangeUrl.replace(/^http/, 'ws')}${eventsPath}?protocol=7`;
  const withSubscribers = async (channels: string[], label: string) => {
    await subscribers.connect(eventsUrl, watchers, channels);
    const round = await writeMix(exchangeUrl, lanes);
    const { received } = await subscribers.stats();
    await subscribers.disconnect();
    return { round: { ...round, name: `${round.name}, ${label}` }, received };
  };
  const plain: Load[] = [];
  const elsewhere: Load[] = [];
  const watched: Load[] = [];
  const received: number[] = [];
  const count = watchers.toLocaleString('en');
  for (let n = 0; n < writeRounds; n++) {
    plain.push(await writeMix(exchangeUrl, lanes));
    const apart = await withSubscribers(
      elsewhereChannels,
      `${count} subscribers of another product connected`,
    );
    // No write changes their channels: anything they hear was published in error.
    if (apart.received > 0) throw new Error(`idle subscribers received ${apart.received} events`);
    elsewhere.push(apart.round);
    const watching = await withSubscribers(watchedChannels, `${count} subscribers of its channels`);
    // Every subscriber of the book hears of the writes, or the row measured nothing.
    if (watching.received < watchers) {
      throw new Error(`the subscribers received ${watching.received} events`);
    }
    watched.push(watching.round);
    received.push(watching.received);
  }
  return {
    writes: medianOf(plain),
    elsewhere: medianOf(elsewhere),
    watched: medianOf(watched),
    deliveries: median(received) / seconds,
  };
}
