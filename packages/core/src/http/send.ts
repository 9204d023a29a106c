import { whenAborted } from './abort-listeners.js';
import type { AttemptHeaders } from './attempt-headers.js';

/** One attempt, as a sender puts it on the wire. */
export interface Outgoing {
  method: string;
  /** Absolute; its path and query are byte for byte the ones that were signed. */
  url: string;
  headers: AttemptHeaders;
  body: string | Uint8Array<ArrayBuffer> | undefined;
  /**
   * Signs the attempt into `headers`. A sender calls it as late as it can, right before the
   * headers go out: nonces then rise in the order calls reach the wire, not the order they
   * were asked for, which over several sockets differ.
   */
  sign?: (() => Promise<void> | void) | undefined;
}

/** An answer with its whole body read. */
export interface Answer {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

/**
 * Sends one attempt and reads the whole answer. Rejects with a DOMException named
 * TimeoutError when `timeoutMs` passes first, with the signal's reason when it aborts.
 */
export type Send = (
  request: Outgoing,
  signal: AbortSignal | undefined,
  timeoutMs: number,
) => Promise<Answer>;

export const timeoutError = () => new DOMException('The attempt timed out', 'TimeoutError');

/** Sends through a fetch: the global one in browsers and edge runtimes, or the caller's own. */
export function fetchSend(fetch: typeof globalThis.fetch): Send {
  return async (request, signal, timeoutMs) => {
    // One controller per attempt, held here for as long as fetch may wait on it: a signal
    // derived with AbortSignal.any can be collected while a fetch still waits, and never fire.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(timeoutError()), timeoutMs);
    const stopWaiting = whenAborted(signal, () => controller.abort(signal?.reason));
    try {
      // A synchronous signer is not awaited: the request then goes out in the same turn.
      const signing = request.sign?.();
      if (signing) await signing;
      const response = await fetch(request.url, {
        method: request.method,
        headers: request.headers.toRecord(),
        body: request.body,
        signal: controller.signal,
      });
      return {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
        text: await readText(response),
      };
    } finally {
      clearTimeout(timer);
      stopWaiting();
    }
  };
}

// Decoding a whole body at once keeps no state between calls, so one decoder serves them all:
// a decoder made per call costs more than the read it serves.
const utf8 = new TextDecoder();

/**
 * The whole body as text, decoded as `text()` does (UTF-8, a leading BOM dropped, bad bytes
 * replaced): read off the body's own reader, it skips the body-mixin machinery that makes
 * `text()` in undici cost a few microseconds a call. A fetch whose answer has no web stream
 * (node-fetch's has a Node one) is read with `text()`.
 */
async function readText(response: Response): Promise<string> {
  if (typeof response.body?.getReader !== 'function') return response.text();
  const reader = response.body.getReader();
  const first = await reader.read();
  if (first.done) return '';
  // A small answer comes in one chunk; a larger one is joined before it is decoded, so a
  // character split between chunks is decoded whole.
  let next = await reader.read();
  if (next.done) return utf8.decode(first.value);
  const chunks = [first.value];
  let size = first.value.byteLength;
  for (; !next.done; next = await reader.read()) {
    chunks.push(next.value);
    size += next.value.byteLength;
  }
  const whole = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return utf8.decode(whole);
}
