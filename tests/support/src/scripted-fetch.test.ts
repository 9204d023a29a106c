import { describe, expect, it } from 'vitest';
import { jsonReply, scriptedFetch } from './scripted-fetch.js';

describe('scriptedFetch', () => {
  it('records each request and answers from the script, then from `otherwise`', async () => {
    const passed: string[] = [];
    const { fetch, sent } = scriptedFetch(
      [jsonReply({ body: { a: 1 }, status: 201 }), new Error('down')],
      {
        otherwise: async (input) => {
          passed.push(String(input));
          return new Response('real');
        },
      },
    );
    const first = await fetch('http://127.0.0.1:1/a', { method: 'POST', body: '{"x":1}' });
    expect([first.status, await first.json()]).toEqual([201, { a: 1 }]);
    await expect(fetch('http://127.0.0.1:1/b')).rejects.toThrow('down');
    expect(await (await fetch('http://127.0.0.1:1/c')).text()).toBe('real');
    expect(sent.map((s) => [s.request.method, s.body])).toEqual([
      ['POST', '{"x":1}'],
      ['GET', ''],
      ['GET', ''],
    ]);
    expect(passed).toEqual(['http://127.0.0.1:1/c']);
  });

  it('hangs until the request is aborted, and answers 500 once the script is spent', async () => {
    const { fetch } = scriptedFetch(['hang']);
    const abort = new AbortController();
    const hanging = fetch('http://127.0.0.1:1/', { signal: abort.signal });
    abort.abort(new Error('stopped'));
    await expect(hanging).rejects.toThrow('stopped');
    expect((await fetch('http://127.0.0.1:1/')).status).toBe(500);
  });
});
