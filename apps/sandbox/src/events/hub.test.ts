import { describe, expect, it } from 'vitest';
import { EventHub, type Subscriber } from './hub.js';

/** A subscriber that logs what the hub does with it. */
function logged(log: string[], name: string, fail = false): Subscriber {
  return {
    bufferedAmount: 0,
    send(frame) {
      if (fail) throw new Error('the socket is gone');
      log.push(`${name} ${(JSON.parse(frame.toString()) as { data: string }).data}`);
    },
    cork: () => log.push(`${name} cork`),
    uncork: () => log.push(`${name} uncork`),
    drop: () => log.push(`${name} drop`),
  };
}

describe('the hub', () => {
  it("holds a subscriber's frames of one go and writes them at once, in order", () => {
    const hub = new EventHub();
    const log: string[] = [];
    // One connection, subscribed to two channels.
    const one = logged(log, 'one');
    hub.subscribe('a', one);
    hub.subscribe('b', one);
    hub.publish([
      { key: 'a', channel: 'a', event: 'updated', data: '1' },
      { key: 'b', channel: 'b', event: 'updated', data: '2' },
      { key: 'a', channel: 'a', event: 'updated', data: '3' },
    ]);
    expect(log).toEqual(['one cork', 'one 1', 'one 2', 'one 3', 'one uncork']);
  });

  it('keeps sending to the others when one subscriber fails, and releases every one it held', () => {
    const hub = new EventHub();
    const log: string[] = [];
    hub.subscribe('a', logged(log, 'broken', true));
    hub.subscribe('a', logged(log, 'steady'));
    hub.publish([
      { key: 'a', channel: 'a', event: 'updated', data: '1' },
      { key: 'a', channel: 'a', event: 'updated', data: '2' },
    ]);
    expect(log).toEqual([
      'broken cork',
      'steady cork',
      'steady 1',
      'steady 2',
      'broken uncork',
      'steady uncork',
    ]);
  });

  it('sends a lone event at once, holding nothing back', () => {
    const hub = new EventHub();
    const log: string[] = [];
    hub.subscribe('a', logged(log, 'one'));
    hub.publish([{ key: 'a', channel: 'a', event: 'updated', data: '1' }]);
    expect(log).toEqual(['one 1']);
  });

  it('drops a subscriber that has fallen behind, and sends it nothing more', () => {
    const hub = new EventHub(10);
    const log: string[] = [];
    hub.subscribe('a', { ...logged(log, 'slow'), bufferedAmount: 11 });
    hub.publish([{ key: 'a', channel: 'a', event: 'updated', data: '1' }]);
    expect(log).toEqual(['slow drop']);
  });
});
