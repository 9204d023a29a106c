import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { whenAborted } from './abort-listeners.js';

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('whenAborted', () => {
  it('holds one listener on a signal however many wait on it, and none once they are done', () => {
    const controller = new AbortController();
    const stops = Array.from({ length: 50 }, () => whenAborted(controller.signal, () => {}));
    expect(listeners(controller.signal)).toBe(1);
    for (const stop of stops.slice(0, 49)) stop();
    expect(listeners(controller.signal)).toBe(1);
    stops[49]?.();
    stops[49]?.();
    expect(listeners(controller.signal)).toBe(0);
    // Waiting again after all left adds the listener again.
    const again = whenAborted(controller.signal, () => {});
    expect(listeners(controller.signal)).toBe(1);
    again();
    expect(listeners(controller.signal)).toBe(0);
  });

  it('calls every waiter still waiting once when the signal aborts, and no waiter that left', () => {
    const controller = new AbortController();
    const called: number[] = [];
    const stops = [0, 1, 2].map((n) => whenAborted(controller.signal, () => called.push(n)));
    stops[1]?.();
    controller.abort();
    controller.abort();
    expect(called).toEqual([0, 2]);
    expect(listeners(controller.signal)).toBe(0);
    // Stopping after the abort changes nothing.
    for (const stop of stops) stop();
    expect(called).toEqual([0, 2]);
  });

  it('calls at once for a signal already aborted, and does nothing without a signal', () => {
    let calls = 0;
    whenAborted(AbortSignal.abort(), () => calls++);
    expect(calls).toBe(1);
    const stop = whenAborted(undefined, () => calls++);
    stop();
    expect(calls).toBe(1);
  });

  it('counts one function given twice as two waiters', () => {
    const controller = new AbortController();
    let calls = 0;
    const onAbort = () => calls++;
    const first = whenAborted(controller.signal, onAbort);
    whenAborted(controller.signal, onAbort);
    first();
    controller.abort();
    expect(calls).toBe(1);
  });
});
