/**
 * Who listens to which channel, and the fan-out of one event to them. A frame is serialised
 * once per event, whatever the number of subscribers; a subscriber that cannot keep up is
 * dropped rather than buffered without end, so it never delays the exchange or the others.
 */

/** One connection as the hub sees it. */
export interface Subscriber {
  /** Bytes handed to the socket and not yet written to the network. */
  readonly bufferedAmount: number;
  send(frame: string): void;
  /** Closes the connection with a code of the protocol's; called once it falls behind. */
  drop(code: number, reason: string): void;
}

/**
 * Where the hub files a subscription: a public channel by its address; a private one by its
 * user and address, since `user_account_jpy_orders` names a different stream for each user.
 */
export const subscriptionKey = (address: string, userId?: number) =>
  userId === undefined ? address : `${userId}:${address}`;

/** Pusher's "over capacity": the client should reconnect after a pause. */
export const fellBehindCode = 4100;

export class EventHub {
  readonly #channels = new Map<string, Set<Subscriber>>();

  /**
   * @param maxBufferedBytes What a subscriber may leave unread before it is dropped.
   */
  constructor(readonly maxBufferedBytes = 4 * 1024 * 1024) {}

  subscribe(key: string, subscriber: Subscriber): void {
    const subscribers = this.#channels.get(key) ?? new Set();
    subscribers.add(subscriber);
    this.#channels.set(key, subscribers);
  }

  unsubscribe(key: string, subscriber: Subscriber): void {
    const subscribers = this.#channels.get(key);
    if (!subscribers?.delete(subscriber)) return;
    if (subscribers.size === 0) this.#channels.delete(key);
  }

  /** Whether no one listens anywhere: then a call publishes nothing and renders nothing. */
  get idle(): boolean {
    return this.#channels.size === 0;
  }

  /** Whether anyone listens at `key`: an event no one would receive is not rendered. */
  listening(key: string): boolean {
    return this.#channels.has(key);
  }

  /** How many listen at `key`. */
  subscribers(key: string): number {
    return this.#channels.get(key)?.size ?? 0;
  }

  /**
   * Sends `event` with `data` (a JSON string, as Pusher carries it) on `channel` to every
   * subscriber at `key` (see subscriptionKey).
   */
  publish(key: string, channel: string, event: string, data: string): void {
    const subscribers = this.#channels.get(key);
    if (!subscribers) return;
    const frame = JSON.stringify({ event, channel, data });
    for (const subscriber of subscribers) {
      if (subscriber.bufferedAmount > this.maxBufferedBytes) {
        subscriber.drop(fellBehindCode, 'Fell behind: reconnect, then read what was missed');
        continue;
      }
      subscriber.send(frame);
    }
  }
}
