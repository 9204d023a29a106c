import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AttemptHeaders } from './attempt-headers.js';
import { loopbackServer } from './loopback.test-support.js';
import { fetchSend } from './send.js';

const euro = Buffer.from('€', 'utf8');
const bom = Buffer.from([0xef, 0xbb, 0xbf]);

/** Bodies sent in several writes, with pauses, so the client reads them in several chunks. */
const bodies: Record<string, Buffer[]> = {
  '/one-chunk': [Buffer.from('{"price":"9600000.0"}')],
  // A three-byte character split across writes must still decode to one character.
  '/split-character': [
    Buffer.from('{"name":"'),
    euro.subarray(0, 1),
    euro.subarray(1),
    Buffer.from('"}'),
  ],
  '/bom': [bom, Buffer.from('{"a":1}')],
  '/bad-bytes': [Buffer.from('ok '), Buffer.from([0xff, 0xfe]), Buffer.from(' end')],
  '/empty': [],
};

const loopback = loopbackServer(async (request, _, response) => {
  if (request.url === '/stalls') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"partial":');
    return;
  }
  const parts = bodies[request.url ?? ''] ?? [];
  response.writeHead(parts.length === 0 ? 204 : 200, { 'content-type': 'application/json' });
  for (const part of parts) {
    response.write(part);
    await sleep(5);
  }
  response.end();
});

const outgoing = (path: string) => ({
  method: 'GET',
  url: `${loopback.origin}${path}`,
  headers: new AttemptHeaders(),
  body: undefined,
});

describe('fetchSend', () => {
  it.each(Object.keys(bodies))('reads %s exactly as text() does', async (path) => {
    const expected = await (await fetch(`${loopback.origin}${path}`)).text();
    const answer = await fetchSend(fetch)(outgoing(path), undefined, 5_000);
    expect(answer.text).toBe(expected);
  });

  it('decodes a character split across chunks, drops a BOM and replaces bad bytes', async () => {
    const send = fetchSend(fetch);
    expect((await send(outgoing('/split-character'), undefined, 5_000)).text).toBe('{"name":"€"}');
    expect((await send(outgoing('/bom'), undefined, 5_000)).text).toBe('{"a":1}');
    expect((await send(outgoing('/bad-bytes'), undefined, 5_000)).text).toBe('ok \uFFFD\uFFFD end');
    expect((await send(outgoing('/empty'), undefined, 5_000)).text).toBe('');
  });

  it('decodes answers read side by side apart, whatever order their chunks come in', async () => {
    const send = fetchSend(fetch);
    const paths = ['/split-character', '/bad-bytes', '/bom', '/split-character', '/bad-bytes'];
    const texts = await Promise.all(
      paths.map(async (path) => (await send(outgoing(path), undefined, 5_000)).text),
    );
    expect(texts).toEqual([
      '{"name":"€"}',
      'ok \uFFFD\uFFFD end',
      '{"a":1}',
      '{"name":"€"}',
      'ok \uFFFD\uFFFD end',
    ]);
  });

  it('holds one listener on a signal twenty reads share, stops them all on it, and leaves none', async () => {
    const send = fetchSend(fetch);
    const shared = new AbortController();
    const read = await Promise.all(
      Array.from({ length: 20 }, () => send(outgoing('/bom'), shared.signal, 5_000)),
    );
    expect(read.map((answer) => answer.text)).toEqual(read.map(() => '{"a":1}'));
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    const stalled = Array.from({ length: 20 }, () =>
      send(outgoing('/stalls'), shared.signal, 5_000),
    );
    await sleep(50);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
    shared.abort(new Error('enough'));
    const outcomes = await Promise.allSettled(stalled);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(stalled.map(() => 'rejected'));
  });

  it('times out while the body is still coming', async () => {
    const pending = fetchSend(fetch)(outgoing('/stalls'), undefined, 100);
    await expect(pending).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('reads an answer without a web stream body through text()', async () => {
    // node-fetch answers with a Node stream as the body, which has no reader.
    const nodeStyleFetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const response = await fetch(input, init);
      const text = await response.text();
      return {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
        body: { pipe() {} },
        text: async () => text,
      } as unknown as Response;
    };
    const answer = await fetchSend(nodeStyleFetch)(outgoing('/split-character'), undefined, 5_000);
    expect(answer.text).toBe('{"name":"€"}');
  });
});
