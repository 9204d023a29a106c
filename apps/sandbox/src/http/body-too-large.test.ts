/**
 * A body far over the limit, sent whole over a real socket: the client must read the
 * documented 413 rather than a reset connection, however much of the body it had still to
 * write when the server made up its mind.
 */
import { connect } from 'node:net';
import partnerSpec from '@exchange-kit/contract/partner/openapi.json' with { type: 'json' };
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { startTestSandbox } from '../test-support.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

const limit = partnerSpec.info['x-request-limits']['max-body-bytes'];
const eightMegabytes = 8 * 1024 * 1024;

interface Received {
  status: number;
  connection: string | undefined;
  body: unknown;
}

/**
 * POSTs `size` bytes of JSON over a bare socket, writing on as fast as the server reads as
 * a client that ignores an early answer does, and reads what comes back until the server
 * closes. A failed write or read rejects: that is the reset the client must not meet.
 */
function postHuge(baseUrl: string, path: string, size: number): Promise<Received> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.setTimeout(20_000, () => socket.destroy(new Error('no answer in 20 s')));
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', reject);
    socket.on('close', (hadError) => {
      if (!hadError) resolve(parseAnswer(Buffer.concat(received).toString('utf8')));
    });
    socket.on('connect', async () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`,
      );
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      for (let sent = 0; sent < size && socket.writable; sent += chunk.length) {
        if (!socket.write(chunk.subarray(0, Math.min(chunk.length, size - sent)))) {
          await new Promise((drained) => socket.once('drain', drained).once('close', drained));
        }
      }
    });
  });
}

function parseAnswer(text: string): Received {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = new Map(
    headerLines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  return {
    status: Number(statusLine.split(' ')[1]),
    connection: headers.get('connection'),
    body: JSON.parse(body),
  };
}

describe('a body over the limit', () => {
  it('is answered 413 with a JSON body, then the connection closes', async () => {
    const answer = await postHuge(sandbox.partnerUrl, '/api/v1/session', eightMegabytes);
    expect(answer.status).toBe(413);
    expect(answer.connection).toBe('close');
    expect(answer.body).toMatchObject({ errors: { body: [`larger_than_${limit}_bytes`] } });
  });

  it('is answered 413 on the exchange interface as well', async () => {
    const answer = await postHuge(sandbox.exchangeUrl, '/orders', eightMegabytes);
    expect(answer.status).toBe(413);
    expect(answer.connection).toBe('close');
    expect(answer.body).toMatchObject({
      errors: { body: [expect.stringMatching(/^larger_than_/)] },
    });
  });
});
