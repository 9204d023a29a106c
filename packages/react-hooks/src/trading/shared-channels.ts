/**
 * One subscription per channel of a client, however many feeds listen to it: the events client
 * takes one subscription per address, and a book and a list of fills may both want a pair.
 */

import type { ChannelName, ChannelParameters } from '@exchange-kit/contract/events';
import type { ChannelMessage } from '@exchange-kit/exchange-client';
import type { TradingClient } from './trading-client.js';

interface Shared {
  users: number;
  ready: Promise<void>;
  listeners: Set<(message: ChannelMessage<ChannelName>) => void>;
  close(): void;
}

export interface SharedChannel {
  ready: Promise<void>;
  /** Stops listening; the last listener to stop leaves the channel. */
  release(): void;
}

const byClient = new WeakMap<TradingClient['events'], Map<string, Shared>>();

export function listen<Name extends ChannelName>(
  client: TradingClient,
  name: Name,
  parameters: ChannelParameters<Name>,
  listener: (message: ChannelMessage<Name>) => void,
): SharedChannel {
  const channels = byClient.get(client.events) ?? new Map<string, Shared>();
  byClient.set(client.events, channels);
  const key = `${name}:${JSON.stringify(parameters)}`;
  let shared = channels.get(key);
  if (!shared) {
    const subscription = client.events.subscribe(name, parameters);
    const listeners = new Set<(message: ChannelMessage<ChannelName>) => void>();
    subscription.on((message) => {
      for (const each of listeners) each(message as ChannelMessage<ChannelName>);
    });
    shared = { users: 0, ready: subscription.ready, listeners, close: () => subscription.close() };
    channels.set(key, shared);
  }
  const current = shared;
  const each = listener as (message: ChannelMessage<ChannelName>) => void;
  current.users++;
  current.listeners.add(each);
  let released = false;
  return {
    ready: current.ready,
    release() {
      if (released) return;
      released = true;
      current.listeners.delete(each);
      if (--current.users > 0) return;
      channels.delete(key);
      current.close();
    },
  };
}
