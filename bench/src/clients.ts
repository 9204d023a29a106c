/**
 * The client side: signing, decoding one order, and a whole call on loopback measured
 * against the floor (global fetch + JSON.parse of the same answer), the lower floor of
 * node:http that the client sends through on Node, and bare openapi-fetch.
 */
import { once } from 'node:events';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadSchemas, operationTable } from '@exchange-kit/contract/exchange';
import spec from '@exchange-kit/contract/exchange/openapi.json' with { type: 'json' };
import { zGetOrderResponse } from '@exchange-kit/contract/exchange/schemas';
import { decodeBody, type ResponseSchema } from '@exchange-kit/core';
import { serviceAuthJwt, signServiceAuth } from '@exchange-kit/core/auth';
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
  /** The full call against the node:http floor. */
  ratio: number;
  /** The call through a given fetch against the fetch floor. */
  fetchRatio: number;
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
  // On Node the client validates with the schema zod compiled; browsers with the schema as is.
  const compiled = {
    ...context,
    schema: (await loadSchemas()).zGetOrderResponse as ResponseSchema,
  };
  const [decode, decodeRuntime, parseOnly] = await measure([
    [
      'decode + validate + normalise one order (on Node: compiled schema)',
      () => decodeBody(orderText, operationTable.getOrder, compiled),
    ],
    [
      'decode + validate + normalise one order (in browsers: schema as is)',
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
  const orderUrl = `${baseUrl}/orders/2157480`;
  // The floor of the Node transport, and the same call with each stage of the client added.
  const nodeHttp = (headers?: Record<string, string>, read = JSON.parse) =>
    new Promise<unknown>((resolve, reject) => {
      request(orderUrl, { agent, headers }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve(read(text)));
        response.on('error', reject);
      })
        .on('error', reject)
        .end();
    });
  const signed = () => ({
    'x-service-auth': serviceAuthJwt(token, { path: '/orders/2157480' }) as string,
  });
  const decoded = (text: string) => decodeBody(text, operationTable.getOrder, compiled);
  // A call through fetch that can time out: the signal must be handed to fetch up front.
  const withTimeout = async (
    send: (signal: AbortSignal) => Promise<Response>,
    read: (text: string) => unknown,
  ) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 30_000);
    try {
      return read(await (await send(controller.signal)).text());
    } finally {
      clearTimeout(timer);
    }
  };
  await client.orders.get({ id: 2157480 });
  await viaFetch.orders.get({ id: 2157480 });
  const [
    nodeFloor,
    withSigning,
    withDecoding,
    full,
    floor,
    fetchTimeout,
    fetchSigning,
    fetchDecoding,
    openapiFetch,
    fetchCall,
  ] = await measure(
    [
      ['node:http keep-alive agent + JSON.parse (floor of the Node transport)', () => nodeHttp()],
      ['+ X-Service-Auth JWT signed and sent', () => nodeHttp(signed())],
      ['+ answer decoded, validated, normalised', () => nodeHttp(signed(), decoded)],
      ['exchange-client orders.get', () => client.orders.get({ id: 2157480 })],
      [
        'fetch + JSON.parse (floor through fetch)',
        async () => JSON.parse(await (await fetch(orderUrl)).text()),
      ],
      [
        '+ an abort signal for the timeout (a controller and a timer)',
        () => withTimeout((signal) => fetch(orderUrl, { signal }), JSON.parse),
      ],
      [
        '+ X-Service-Auth JWT signed and sent through fetch',
        () => withTimeout((signal) => fetch(orderUrl, { headers: signed(), signal }), JSON.parse),
      ],
      [
        '+ answer decoded, validated, normalised, through fetch',
        () => withTimeout((signal) => fetch(orderUrl, { headers: signed(), signal }), decoded),
      ],
      [
        'bare openapi-fetch',
        () => bare.GET('/orders/{order_id}', { params: { path: { order_id: 2157480 } } }),
      ],
      [
        'exchange-client orders.get through a given fetch',
        () => viaFetch.orders.get({ id: 2157480 }),
      ],
    ],
    3_000,
  );
  agent.destroy();
  server.close();

  const unitRows = [sign, jose, decode, decodeRuntime, parseOnly].map(
    (m) => `| ${m.name} | ${us(m.medianUs)} | ${m.samples} |`,
  );
  const callRow = (m: typeof full, base: typeof full) =>
    `| ${m.name} | ${us(m.medianUs)} | ${(m.medianUs / base.medianUs).toFixed(2)}x | ${m.samples} |`;
  const ratio = full.medianUs / nodeFloor.medianUs;
  const fetchRatio = fetchCall.medianUs / floor.medianUs;
  const markdown = [
    '## Clients',
    '',
    '| stage | median | samples |',
    '| --- | --- | --- |',
    ...unitRows,
    '',
    'One call on loopback, against a server in the same process. Each row of the first group adds one stage of the client to the node:http floor, so the last step is what the client itself adds (building the URL, retries, the timeout, hooks); the second group does the same through fetch, where the timeout needs an abort signal handed to fetch before anything else, so that stage comes first.',
    '',
    '| call | median | vs its floor | samples |',
    '| --- | --- | --- | --- |',
    ...[nodeFloor, withSigning, withDecoding, full].map((m) => callRow(m, nodeFloor)),
    ...[floor, fetchTimeout, fetchSigning, fetchDecoding, openapiFetch, fetchCall].map((m) =>
      callRow(m, floor),
    ),
    '',
    `Targets: decode + validate + normalise of one order at most 5 µs (${us(decode.medianUs)}); the full call at most 1.30x the node:http floor (${ratio.toFixed(2)}x); through a given fetch at most 1.15x the fetch floor (${fetchRatio.toFixed(2)}x; the stages a call needs, without the client, already ${(fetchDecoding.medianUs / floor.medianUs).toFixed(2)}x).`,
  ].join('\n');
  return {
    markdown,
    targets: { signUs: sign.medianUs, decodeUs: decode.medianUs, ratio, fetchRatio },
  };
}
