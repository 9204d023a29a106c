/**
 * The calls waiting on each caller's signal, and the one listener the signal holds for them
 * all: a bot handing one signal to fifty calls in flight adds one listener to it, not fifty
 * (Node warns of a leak past ten), and a call that ends takes its callback back.
 */
const waiting = new WeakMap<AbortSignal, { callbacks: Set<() => void>; listener: () => void }>();

/**
 * Calls `onAbort` once `signal` aborts (at once when it already has), until the function
 * returned is called; that function is safe to call more than once, and after the abort.
 */
export function whenAborted(signal: AbortSignal | undefined, onAbort: () => void): () => void {
  if (!signal) return () => {};
  if (signal.aborted) {
    onAbort();
    return () => {};
  }
  let entry = waiting.get(signal);
  if (!entry) {
    const callbacks = new Set<() => void>();
    const listener = () => {
      waiting.delete(signal);
      for (const callback of callbacks) callback();
    };
    entry = { callbacks, listener };
    waiting.set(signal, entry);
    signal.addEventListener('abort', listener, { once: true });
  }
  // A callback of its own, so that one function handed twice is two waiters.
  const callback = () => onAbort();
  const { callbacks, listener } = entry;
  callbacks.add(callback);
  return () => {
    if (!callbacks.delete(callback) || callbacks.size > 0 || signal.aborted) return;
    waiting.delete(signal);
    signal.removeEventListener('abort', listener);
  };
}
