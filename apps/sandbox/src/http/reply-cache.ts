import type { OutgoingHttpHeaders } from 'node:http';

/** An answer ready for the wire. */
export interface Serialized {
  status: number;
  headers: OutgoingHttpHeaders;
  bytes: Buffer;
}

/** A JSON answer that no cache keeps: the sandbox's own endpoints beside the interfaces. */
export function uncachedJson(status: number, body: unknown): Serialized {
  const bytes = Buffer.from(JSON.stringify(body));
  return {
    status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-length': bytes.length,
      'cache-control': 'no-store',
    },
    bytes,
  };
}

/** A 405 naming the methods the path takes, in `Allow` and in the message. */
export function notAllowed(allow: string, message: string): Serialized {
  const refused = uncachedJson(405, { message });
  refused.headers.allow = allow;
  return refused;
}

interface Entry {
  generation: number;
  at: number;
  reply: Serialized;
}

/**
 * Answers of public reads (products, order books, loan books, currencies), kept by URL while
 * the store's generation is unchanged. The age bound keeps what moves with the clock alone,
 * the `timestamp` field and the 24-hour market figures, at most `maxAgeMs` behind.
 */
export class ReplyCache {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly maxAgeMs = 1000,
    // Query strings are the caller's to choose: without a bound, a scan of made-up URLs
    // would grow the cache without end.
    private readonly maxEntries = 1024,
  ) {}

  get(url: string, generation: number, now: number): Serialized | undefined {
    const entry = this.#entries.get(url);
    if (!entry) return undefined;
    if (entry.generation !== generation || now < entry.at || now - entry.at >= this.maxAgeMs) {
      this.#entries.delete(url);
      return undefined;
    }
    return entry.reply;
  }

  set(url: string, generation: number, now: number, reply: Serialized): void {
    if (this.#entries.size >= this.maxEntries) this.#entries.clear();
    this.#entries.set(url, { generation, at: now, reply });
  }
}
