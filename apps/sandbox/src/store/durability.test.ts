import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  zCreateOAuthRequestResponse,
  zCreateOrderResponse,
  zGetAccountsResponse,
  zGetOrderByClientIdResponse,
  zListOrdersResponse,
} from '@exchange-kit/contract/exchange/schemas';
import {
  zCreateIntentResponse,
  zCreateSessionResponse,
} from '@exchange-kit/contract/partner/schemas';
import { signServiceAuth } from '@exchange-kit/core/auth';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { defaultCredentials } from '../config.js';
import { type RunningSandbox, startSandbox } from '../server.js';
import { demoClient, lastingStore, send, valid } from '../test-support.js';

const directories: string[] = [];

async function dataDir(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'sandbox-durability-'));
  directories.push(directory);
  return directory;
}

afterEach(async () => {
  for (const directory of directories.splice(0))
    await rm(directory, { recursive: true, force: true });
});

const order = (clientOrderId: string, price = '9000000') => ({
  order_type: 'limit',
  product_id: 1,
  side: 'buy',
  quantity: '0.01',
  price,
  client_order_id: clientOrderId,
});

describe('durability', () => {
  it('keeps orders, balances, spent nonces and an OAuth denial across a restart', async () => {
    const dir = await dataDir();
    const first = await startSandbox({ port: 0, dataDir: dir, testControl: true });
    const call = demoClient(first);
    const request = valid(
      zCreateOAuthRequestResponse,
      await call('POST', '/system/oauth_requests', { body: {} }),
    );
    const oauth = {
      publicId: request.oauth_request_public_id,
      privateId: request.oauth_request_private_id,
    };
    const denied = await send(
      first.exchangeUrl,
      'POST',
      `/test/oauth_requests/${oauth.publicId}/deny`,
      { 'content-type': 'application/json' },
      '{}',
    );
    expect(denied).toMatchObject({ status: 200, body: { status: 'denied' } });
    for (const id of ['keep-1', 'keep-2', 'gone-1']) {
      valid(zCreateOrderResponse, await call('POST', '/orders', { body: order(id) }));
    }
    expect((await call('PUT', '/orders/client:gone-1/cancel')).status).toBe(200);
    const spent = await signServiceAuth(
      { tokenId: first.credentials.tokenId, tokenSecret: first.credentials.tokenSecret },
      { path: '/accounts' },
    );
    const headers = { 'X-Service-Auth': spent };
    const accountsBefore = valid(
      zGetAccountsResponse,
      await send(first.exchangeUrl, 'GET', '/accounts', headers),
    );
    const ordersBefore = valid(zListOrdersResponse, await call('GET', '/orders'));
    const productsBefore = await send(first.exchangeUrl, 'GET', '/products', {});
    await first.close();

    const second = await startSandbox({ port: 0, dataDir: dir });
    try {
      const again = demoClient(second);
      expect(valid(zListOrdersResponse, await again('GET', '/orders'))).toEqual(ordersBefore);
      expect(valid(zGetAccountsResponse, await again('GET', '/accounts'))).toEqual(accountsBefore);
      const products = await send(second.exchangeUrl, 'GET', '/products', {});
      expect((products.body as unknown[]).length).toBe((productsBefore.body as unknown[]).length);
      const replay = await send(second.exchangeUrl, 'GET', '/accounts', headers);
      expect(replay).toMatchObject({ status: 401, body: 'Nonce is too small' });
      expect(await again('GET', '/accounts', { oauth })).toMatchObject({
        status: 401,
        body: { errors: { oauth_request_public_id: ['denied'] } },
      });
    } finally {
      await second.close();
    }
  });

  it('keeps how far test control moved the clock, with test control or without', async () => {
    const dir = await dataDir();
    const day = 24 * 60 * 60;
    const first = await startSandbox({ port: 0, dataDir: dir, testControl: true });
    const json = { 'content-type': 'application/json' };
    const move = (seconds: number) =>
      send(
        first.exchangeUrl,
        'POST',
        '/test/clock',
        json,
        JSON.stringify({ advance_seconds: seconds }),
      );
    expect((await move(day)).status).toBe(200);
    const moved = await move(day);
    const movedTo = (moved.body as { now: number }).now;
    expect(movedTo - Date.now() / 1000).toBeGreaterThan(2 * day - 60);
    await first.close();

    const second = await startSandbox({ port: 0, dataDir: dir });
    try {
      const product = await send(second.exchangeUrl, 'GET', '/products/1', {});
      // The product's timestamp is the sandbox's clock: two days ahead, as it was left.
      const at = Number((product.body as { timestamp: string }).timestamp);
      expect(at).toBeGreaterThanOrEqual(movedTo);
      expect(at - Date.now() / 1000).toBeGreaterThan(2 * day - 60);
    } finally {
      await second.close();
    }
  });

  it('reads an intent made before a restart when a call names it, and keeps it consumed', async () => {
    const store = await lastingStore();
    const partnerCall = async (
      sandbox: RunningSandbox,
      path: string,
      body: unknown,
      headers: Record<string, string> = {},
    ) =>
      send(
        sandbox.partnerUrl,
        'POST',
        path,
        { 'content-type': 'application/json', ...headers },
        JSON.stringify(body),
      );
    const intentPath = `/api/v1/partner/${defaultCredentials.publicApiKey}/intent`;
    const makeIntent = async (sandbox: RunningSandbox, strategy: string) => {
      const { tokenId, tokenSecret } = sandbox.credentials;
      const jwt = await signServiceAuth(
        { tokenId, tokenSecret },
        { path: intentPath, delegate: true },
      );
      const answer = await partnerCall(
        sandbox,
        intentPath,
        {
          payout_settlement: {
            method: 'SERVICE_PARTNER_WALLET',
            currency: 'USDC',
            quantity: '49.90',
          },
          strategy,
        },
        { 'X-Service-Auth': jwt },
      );
      return z.parse(zCreateIntentResponse, answer.body).payload.id;
    };
    const first = await startSandbox({ port: 0, ...store });
    const once = await makeIntent(first, 'ONE_TO_ONE_ATTEMPTED');
    const widget = await makeIntent(first, 'ONE_TO_MANY');
    await first.close();

    const trade = (sandbox: RunningSandbox, sessionId: string, clientRef: string) =>
      partnerCall(sandbox, '/api/v1/transaction/intent_to_trade', {
        session_id: sessionId,
        intent_id: once.toUpperCase(),
        client_ref: clientRef,
        side: 'buy',
        symbol: 'USDC/ETH',
        currency: 'USDC',
        quantity: '49.90',
        funding_settlement: { method: 'SERVICE_PARTNER_WALLET' },
      });
    const openSession = async (sandbox: RunningSandbox, config?: unknown) =>
      partnerCall(sandbox, '/api/v1/session', {
        public_api_key: defaultCredentials.publicApiKey,
        ...(config === undefined ? {} : { config }),
      });
    const sessionOf = (answer: { body: unknown }) =>
      z.parse(zCreateSessionResponse, answer.body).payload.session_id;

    const second = await startSandbox({ port: 0, ...store });
    try {
      // A start reads no intent: each is read when a call names it.
      expect(second.sequencer.state.partner.intents.size).toBe(0);
      const widgetSession = await openSession(second, { intent_id: widget });
      expect(widgetSession.status, JSON.stringify(widgetSession.body)).toBe(200);
      const unknown = await openSession(second, { intent_id: randomUUID() });
      expect(unknown).toMatchObject({
        status: 422,
        body: { errors: { 'config.intent_id': ['not_found'] } },
      });
      const session = sessionOf(await openSession(second));
      const traded = await trade(second, session, 'first');
      expect(traded.status, JSON.stringify(traded.body)).toBe(202);
      const again = await trade(second, session, 'second');
      expect(again).toMatchObject({
        status: 422,
        body: { errors: { intent_id: ['already_attempted'] } },
      });
    } finally {
      await second.close();
    }

    const third = await startSandbox({ port: 0, ...store });
    try {
      const session = sessionOf(await openSession(third));
      const later = await trade(third, session, 'third');
      expect(later).toMatchObject({
        status: 422,
        body: { errors: { intent_id: ['already_attempted'] } },
      });
    } finally {
      await third.close();
    }
  });

  it('loses no acknowledged write when killed with SIGKILL under load', async () => {
    const dir = await dataDir();
    // The bundle users start as `exchange-sandbox` (built once per run: build.global-setup.ts).
    const sandboxDir = fileURLToPath(new URL('../..', import.meta.url));
    const child = spawn(process.execPath, ['dist/main.js', '--port', '0', '--data-dir', dir], {
      cwd: sandboxDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let acknowledged: string[] = [];
    try {
      const baseUrl = await readyUrl(child);
      // Orders placed in parallel, as the convention allows: no nonce, a client_order_id each.
      const place = async (clientOrderId: string) => {
        const jwt = await signServiceAuth(defaultCredentials, {
          path: '/orders',
          withoutNonce: true,
        });
        const answer = await send(
          baseUrl,
          'POST',
          '/orders',
          { 'X-Service-Auth': jwt, 'content-type': 'application/json' },
          JSON.stringify(order(clientOrderId, '8000000')),
        ).catch(() => undefined);
        return answer?.status === 200 ? clientOrderId : undefined;
      };
      const settled: Promise<string | undefined>[] = [];
      let answered = 0;
      for (let index = 0; index < 60; index++) {
        const placed = place(`kill-${index}`);
        void placed.then((id) => {
          if (id) answered++;
        });
        settled.push(placed);
        // Kill mid-stream, with writes still in flight, once enough have been answered: counting
        // answers rather than waiting a fixed time keeps the test the same on a slow machine.
        if (index === 40) {
          const deadline = Date.now() + 30_000;
          while (answered < 12 && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          child.kill('SIGKILL');
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      acknowledged = (await Promise.all(settled)).filter((id): id is string => id !== undefined);
    } finally {
      // Its claim on the data folder goes only once the process is gone: under load that is
      // later than the kill, and reopening before would find the folder still claimed.
      const gone = child.exitCode !== null || child.signalCode !== null;
      const exited = gone ? Promise.resolve() : once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
    expect(acknowledged.length).toBeGreaterThanOrEqual(12);

    const reopened = await startSandbox({ port: 0, dataDir: dir });
    try {
      const call = demoClient(reopened);
      for (const id of acknowledged) {
        const found = valid(zGetOrderByClientIdResponse, await call('GET', `/orders/client:${id}`));
        expect(found.client_order_id).toBe(id);
      }
    } finally {
      await reopened.close();
    }
  }, 90_000);
});

/** The exchange URL the child prints, once it has printed `ready`. */
function readyUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no ready line: ${output}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /exchange API:\s+(\S+)/.exec(output)?.[1];
      if (url && /^ready$/m.test(output)) {
        clearTimeout(timer);
        resolve(url);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${output}`));
    });
  });
}
