import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransport } from './transport.js';

// A server that accepts and never answers, so only the client's own timeout can end a call.
const server = createServer(() => undefined);
let url: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('transport over real HTTP', () => {
  it('ends a call the server never answers with a timeout error', async () => {
    const transport = createTransport({ timeoutMs: 100, retry: false });
    await expect(transport(new Request(`${url}/accounts`))).rejects.toMatchObject({
      name: 'TransportError',
      reason: 'timeout',
    });
  });
});
