/**
 * A query kept live by channels: read over REST, then each event applied to the cached data,
 * and read again after a reconnect's gap (the repair). One feed per query key and QueryClient,
 * shared by every component that uses it, and ended when the last one unmounts.
 */

import type { ChannelName, ChannelParameters } from '@exchange-kit/contract/events';
import type { ChannelMessage } from '@exchange-kit/exchange-client';
import { hashKey, type QueryClient, type QueryKey } from '@tanstack/react-query';
import { listen, type SharedChannel } from './shared-channels.js';
import type { RepairedGap, TradingClient } from './trading-client.js';

export interface LiveData {
  /** The last gap of the connection, read again over REST since. */
  gap?: RepairedGap | undefined;
}

/** What makes one kind of live query: its REST read, its channels, and how an event applies. */
export interface LiveSource<Data extends LiveData, Update> {
  queryKey: QueryKey;
  client: TradingClient;
  read(signal: AbortSignal): Promise<Data>;
  /** Subscribes the channels, handing each event to `update` as what `apply` takes. */
  channels(listen: ChannelListener, update: (change: Update) => void): SharedChannel[];
  apply(data: Data, change: Update): Data;
}

export type ChannelListener = <Name extends ChannelName>(
  name: Name,
  parameters: ChannelParameters<Name>,
  onEvent: (message: Extract<ChannelMessage<Name>, { kind: 'event' }>) => void,
) => SharedChannel;

interface Feed {
  users: number;
  ready: Promise<unknown>;
  /** Events that arrived while a read was in flight: applied over what the read answers. */
  during: unknown[] | undefined;
  /** Reads waiting for the channels: a read that began before them could miss an event. */
  waiting: number;
  gap: RepairedGap | undefined;
  stop(): void;
}

const feeds = new WeakMap<QueryClient, Map<string, Feed>>();

const feedOf = (queryClient: QueryClient, queryKey: QueryKey) =>
  feeds.get(queryClient)?.get(hashKey(queryKey));

/** Keeps the query of `source` live until the returned function is called (by its last user). */
export function follow<Data extends LiveData, Update>(
  queryClient: QueryClient,
  source: LiveSource<Data, Update>,
): () => void {
  const byKey = feeds.get(queryClient) ?? new Map<string, Feed>();
  feeds.set(queryClient, byKey);
  const hash = hashKey(source.queryKey);
  let feed = byKey.get(hash);
  if (!feed) feed = start(queryClient, source, byKey, hash);
  const current = feed;
  current.users++;
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    if (--current.users === 0) current.stop();
  };
}

function start<Data extends LiveData, Update>(
  queryClient: QueryClient,
  source: LiveSource<Data, Update>,
  byKey: Map<string, Feed>,
  hash: string,
): Feed {
  const { queryKey } = source;
  const repair = (gap: RepairedGap) => {
    feed.gap = gap;
    void queryClient.invalidateQueries({ queryKey, exact: true });
  };
  const update = (change: Update) => {
    feed.during?.push(change);
    queryClient.setQueryData<Data>(queryKey, (data) => data && source.apply(data, change));
  };
  const listener: ChannelListener = (name, parameters, onEvent) =>
    listen(source.client, name, parameters, (message) => {
      if (message.kind === 'gap') repair({ since: message.since, until: message.until });
      else onEvent(message as never);
    });
  const channels = source.channels(listener, update);
  const feed: Feed = {
    users: 0,
    ready: Promise.all(channels.map((channel) => channel.ready)),
    during: undefined,
    waiting: 0,
    gap: undefined,
    stop() {
      byKey.delete(hash);
      for (const channel of channels) channel.release();
      // Nothing keeps the cached data current any more: the next user reads it again.
      void queryClient.invalidateQueries({ queryKey, exact: true, refetchType: 'none' });
    },
  };
  feed.ready.then(
    () => {
      // Data read before the channels were there (a prefetch, hydration) may have missed events.
      if (feed.waiting === 0 && queryClient.getQueryData(queryKey) !== undefined) {
        void queryClient.invalidateQueries({ queryKey, exact: true });
      }
    },
    () => {},
  );
  byKey.set(hash, feed);
  return feed;
}

/**
 * The query function of a live query: once its channels are subscribed (when a component
 * follows it), the REST read, with the events that arrived meanwhile applied over it.
 */
export async function readLive<Data extends LiveData, Update>(
  queryClient: QueryClient,
  source: LiveSource<Data, Update>,
  signal: AbortSignal,
): Promise<Data> {
  const feed = feedOf(queryClient, source.queryKey);
  if (!feed) return source.read(signal);
  feed.waiting++;
  try {
    await feed.ready;
  } finally {
    feed.waiting--;
  }
  const during: unknown[] = [];
  feed.during = during;
  try {
    let data = await source.read(signal);
    for (const change of during) data = source.apply(data, change as Update);
    return { ...data, gap: feed.gap };
  } finally {
    if (feed.during === during) feed.during = undefined;
  }
}
