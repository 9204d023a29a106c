import type { IncomingMessage } from 'node:http';

/** Past this much, or this long, a client sending a body it was refused is let go of. */
const DISCARD_AT_MOST_BYTES = 64 * 1024 * 1024;
const DISCARD_AT_MOST_MS = 10_000;

/**
 * Reads and drops what is left of a refused request's body. Closing a connection whose
 * body is still arriving makes the kernel reset it, and a client still writing then meets
 * ECONNRESET or EPIPE instead of the answer; once the body is read, the answer and the
 * close reach it in order. A body beyond the bounds is cut off as before.
 */
export function discardUnreadBody(raw: IncomingMessage): Promise<void> {
  if (raw.complete || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let discarded = 0;
    const finish = () => {
      clearTimeout(timer);
      raw.off('data', count);
      raw.off('end', finish);
      raw.off('close', finish);
      raw.off('error', finish);
      resolve();
    };
    const count = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > DISCARD_AT_MOST_BYTES) finish();
    };
    const timer = setTimeout(finish, DISCARD_AT_MOST_MS);
    raw.on('data', count);
    raw.once('end', finish);
    raw.once('close', finish);
    raw.once('error', finish);
    raw.resume();
  });
}
