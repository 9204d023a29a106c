import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { startTestSandbox } from '../test-support.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

/** Sends raw bytes and reads the whole answer, the connection being closed after it. */
function raw(text: string): Promise<string> {
  const { port } = new URL(sandbox.exchangeUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(text));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('requests the HTTP parser refuses', () => {
  it('answers headers over 16 KiB with 431 and a reason', async () => {
    const answer = await raw(`GET /products?${'a'.repeat(20_000)} HTTP/1.1\r\nhost: x\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('{"message":"The request line and headers exceed 16 KiB');
  });

  it('answers what is not HTTP with 400 and a reason, and keeps serving', async () => {
    const answer = await raw('NOT HTTP AT ALL\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('{"message":"The request is not valid HTTP"}');
    expect((await fetch(`${sandbox.exchangeUrl}/health`)).status).toBe(200);
  });
});
