import { connect } from 'node:net';
import { signServiceAuth } from '@exchange-kit/core/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { demoClient, startTestSandbox } from '../test-support.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

/** `requests` pipelined in one write on one connection: the status of each answer, in turn. */
function pipelined(requests: string[]): Promise<number[]> {
  const { port } = new URL(sandbox.exchangeUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(requests.join('')));
    let answers = '';
    socket.on('data', (chunk) => {
      answers += chunk;
      const statuses = [...answers.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
      if (statuses.length === requests.length) {
        socket.end();
        resolve(statuses);
      }
    });
    socket.on('error', reject);
    setTimeout(() => reject(new Error(`answered only: ${answers}`)), 10_000);
  });
}

const token = () => ({
  tokenId: sandbox.credentials.tokenId,
  tokenSecret: sandbox.credentials.tokenSecret,
});

/** A request of the demo user signed with the next nonce, its body as JSON when given. */
async function signed(method: string, path: string, body?: object): Promise<string> {
  const jwt = await signServiceAuth(token(), { path });
  const sent = body === undefined ? '' : JSON.stringify(body);
  const headers = [`${method} ${path} HTTP/1.1`, 'host: sandbox', `x-service-auth: ${jwt}`];
  if (body !== undefined) headers.push('content-type: application/json');
  headers.push(`content-length: ${Buffer.byteLength(sent)}`);
  return `${headers.join('\r\n')}\r\n\r\n${sent}`;
}

describe('requests pipelined on one connection', () => {
  it('are decided in the order they came, a body or none', async () => {
    const call = demoClient(sandbox);
    const order = {
      order_type: 'limit',
      product_id: 1,
      side: 'buy',
      quantity: '0.001',
      price: '100',
    };
    const placed = await call('POST', '/orders', { body: order });
    const id = (placed.body as { id: number }).id;
    // Signed in this order, so their nonces go up: decided out of it, the second would
    // spend a nonce above the first's, which would then be refused.
    const requests = [
      await signed('PUT', `/orders/${id}`, { price: '101' }),
      await signed('GET', '/accounts/balance'),
      await signed('POST', '/orders', { ...order, client_order_id: `turns-${Date.now()}` }),
      await signed('PUT', '/orders/cancel_all'),
    ];
    expect(await pipelined(requests)).toEqual([200, 200, 200, 200]);
    // The order placed before cancel_all was cancelled by it.
    const live = await call('GET', '/orders?status=live');
    expect((live.body as { models: unknown[] }).models).toEqual([]);
  });
});
