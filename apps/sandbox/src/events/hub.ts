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

/** Pusher's "over capacity": the client should reconnect after a pause. */
export const fellBehindCode = 4100;

export class EventHub {
  readonly #channels = new Map<string, Set<Subscriber>>();

  /**
   * @param maxBufferedBytes What a subscriber may leave unread before it is dropped.
   */
  constructor(readonly maxBufferedBytes = 4 * 1024 * 1024) {}

  subscribe(address: string, subscriber: Subscriber): void {
    const subscribers = this.#channels.get(address) ?? new Set();
    subscribers.add(subscriber);
    this.#channels.set(address, subscribers);
  }

  unsubscribe(address: string, subscriber: Subscriber): void {
    const subscribers = this.#channels.get(address);
    if (!subscribers?.delete(subscriber)) return;
    if (subscribers.size === 0) this.#channels.delete(address);
  }

  /** Whether anyone listens on `address`: an event no one would receive is not rendered. */
  listening(address: string): boolean {
    return this.#channels.has(address);
  }

  /** How many listen on `address`. */
  subscribers(address: string): number {
    return this.#channels.get(address)?.size ?? 0;
  }

  /** Sends `event` with `data` (a JSON string, as Pusher carries it) to every subscriber. */
  publish(address: string, event: string, data: string): void {
    const subscribers = this.#channels.get(address);
    if (!subscribers) return;
    const frame = JSON.stringify({ event, channel: address, data });
    for (const subscriber of subscribers) {
      if (subscriber.bufferedAmount > this.maxBufferedBytes) {
        subscriber.drop(fellBehindCode, 'Fell behind: reconnect, then read what was missed');
        continue;
      }
      subscriber.send(frame);
    }
  }
}
