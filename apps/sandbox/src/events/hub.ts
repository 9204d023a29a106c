/**
 * Who listens to which channel, and the fan-out of events to them. A frame is serialised and
 * encoded once per event, whatever the number of subscribers, and the frames of one go leave
 * each connection in one write; a subscriber that cannot keep up is dropped rather than
 * buffered without end, so it never delays the exchange or the others.
 */

/** One connection as the hub sees it. */
export interface Subscriber {
  /** Bytes handed to the socket and not yet written to the network. */
  readonly bufferedAmount: number;
  /** Sends one text frame, given encoded in UTF-8. */
  send(frame: Buffer): void;
  /** Holds what is sent until `uncork`, which writes it all at once. */
  cork?(): void;
  uncork?(): void;
  /** Closes the connection with a code of the protocol's; called once it falls behind. */
  drop(code: number, reason: string): void;
}

/** One event on a channel, `data` a JSON string as Pusher carries it. */
export interface HubEvent {
  /** Where its subscribers are filed (see subscriptionKey). */
  key: string;
  channel: string;
  event: string;
  data: string;
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
   * Sends each event to every subscriber at its key, in order; what one subscriber is sent in
   * this go leaves in one write.
   */
  publish(events: readonly HubEvent[]): void {
    // One event leaves in one write anyway: holding it back would only cost the calls.
    const hold = events.length > 1;
    const corked = new Set<Subscriber>();
    try {
      for (const { key, channel, event, data } of events) {
        const subscribers = this.#channels.get(key);
        if (!subscribers) continue;
        const frame = Buffer.from(JSON.stringify({ event, channel, data }));
        for (const subscriber of subscribers) {
          if (subscriber.bufferedAmount > this.maxBufferedBytes) {
            subscriber.drop(fellBehindCode, 'Fell behind: reconnect, then read what was missed');
            continue;
          }
          try {
            if (hold && !corked.has(subscriber)) {
              corked.add(subscriber);
              subscriber.cork?.();
            }
            subscriber.send(frame);
          } catch {
            // A subscriber's failure is the subscriber's: the others still hear of the event.
          }
        }
      }
    } finally {
      for (const subscriber of corked) subscriber.uncork?.();
    }
  }
}
