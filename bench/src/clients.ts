/**
 * The client side: signing, decoding one order, and a whole call on loopback measured
 * against the floor (global fetch + JSON.parse of the same answer), the lower floor of
 * node:http that the client sends through on Node, and bare openapi-fetch.
 */
import { once } from 'node:events';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { operationTable } from '@exchange-kit/contract/exchange';
import spec from '@exchange-kit/contract/exchange/openapi.json' with { type: 'json' };
import { zGetOrderResponse } from '@exchange-kit/contract/exchange/schemas';
import { decodeBody, type ResponseSchema } from '@exchange-kit/core';
import { signServiceAuth } from '@exchange-kit/core/auth';
import { createExchangeClient, type paths } from '@exchange-kit/exchange-client';
import { SignJWT } from 'jose';
import createClient from 'openapi-fetch';
import { measure, us } from './measure.js';

const order = spec.components.responses.CancelledOrder.content['application/json'].example;
const orderText = JSON.stringify({ ...order, status: 'live' });
const token = { tokenId: 'bench-token', tokenSecret: 'bench-secret-0123456789abcdef' };
const key = new TextEncoder().encode(token.tokenSecret);

export interface Targets {
  signUs: number;
  decodeUs: number;
  ratio: number;
}

export async function clientBench(): Promise<{ markdown: string; targets: Targets }> {
  let nonce = 0;
  const [sign, jose] = await measure([
    ['sign (exchange-kit, node:crypto)', () => signServiceAuth(token, { path: '/orders/2157480' })],
    [
      'sign (jose SignJWT)',
      () =>
        new SignJWT({ token_id: token.tokenId, path: '/orders/2157480', nonce: ++nonce })
          .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
          .sign(key),
    ],
  ]);
  const context = {
    method: 'GET',
    path: '/orders/2157480',
    status: 200,
    schema: zGetOrderResponse as ResponseSchema,
  };
  const [decode, parseOnly] = await measure([
    [
      'decode + validate + normalise one order',
      () => decodeBody(orderText, operationTable.getOrder, context),
    ],
    ['JSON.parse of the same order', () => JSON.parse(orderText)],
  ]);

  const server = createServer((_, response) => {
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(orderText),
    });
    response.end(orderText);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const bare = createClient<paths>({ baseUrl });
  const client = createExchangeClient({ baseUrl, ...token, retry: false });
  const viaFetch = createExchangeClient({
    baseUrl,
    ...token,
    retry: false,
    fetch: (input, init) => fetch(input, init),
  });
  const agent = new Agent({ keepAlive: true });
  const nodeHttp = () =>
    new Promise<unknown>((resolve, reject) => {
      request(`${baseUrl}/orders/2157480`, { agent }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve(JSON.parse(text)));
        response.on('error', reject);
      })
        .on('error', reject)
        .end();
    });
  await client.orders.get({ id: 2157480 });
  await viaFetch.orders.get({ id: 2157480 });
  const [floor, nodeFloor, openapiFetch, fetchCall, full] = await measure(
    [
      [
        'fetch + JSON.parse (floor)',
        async () => JSON.parse(await (await fetch(`${baseUrl}/orders/2157480`)).text()),
      ],
      ['node:http keep-alive agent + JSON.parse (floor of the Node transport)', nodeHttp],
      [
        'bare openapi-fetch',
        () => bare.GET('/orders/{order_id}', { params: { path: { order_id: 2157480 } } }),
      ],
      [
        'exchange-client orders.get through a given fetch',
        () => viaFetch.orders.get({ id: 2157480 }),
      ],
      [
        'exchange-client orders.get (sign, send, decode, validate, normalise)',
        () => client.orders.get({ id: 2157480 }),
      ],
    ],
    3_000,
  );
  agent.destroy();
  server.close();

  const calls = [floor, nodeFloor, openapiFetch, fetchCall, full];
  const rows = [sign, jose, decode, parseOnly, ...calls].map((m) => {
    const vsFloor = calls.includes(m) ? `${(m.medianUs / floor.medianUs).toFixed(2)}x` : '';
    return `| ${m.name} | ${us(m.medianUs)} | ${vsFloor} | ${m.samples} |`;
  });
  const ratio = full.medianUs / floor.medianUs;
  const markdown = [
    '## Clients',
    '',
    '| what | median | vs floor | samples |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    `On Node the client sends through node:http with a keep-alive agent; with a \`fetch\` option it sends through that fetch. Against the node:http floor the full call is ${(full.medianUs / nodeFloor.medianUs).toFixed(2)}x.`,
    '',
    `Targets: signing at most 10 µs per token (${us(sign.medianUs)}); decode + validate + normalise of one order at most 20 µs (${us(decode.medianUs)}); exchange-client at most 1.10x the floor (${ratio.toFixed(2)}x).`,
  ].join('\n');
  return { markdown, targets: { signUs: sign.medianUs, decodeUs: decode.medianUs, ratio } };
}
