/** X-Service-Auth JWTs without nonce (POST /orders with a client_order_id): one order each. */

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zCreateOrderResponse } from '@exchange-kit/contract/exchange/schemas';
import { signServiceAuth } from '@exchange-kit/core/auth';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../postgres.test-support.js';
import { type RunningSandbox, startSandbox } from '../server.js';
import { type ParsedResponse, send, startTestSandbox, valid } from '../test-support.js';
import { nonceLessWindowSeconds } from './nonce-less.js';

let sandbox: RunningSandbox;
let clock = Date.now();

beforeAll(async () => {
  sandbox = await startTestSandbox({ now: () => clock });
});
afterAll(() => sandbox.close());

const order = (clientOrderId: string) => ({
  order_type: 'limit',
  product_id: 1,
  side: 'buy',
  quantity: '0.01',
  price: '9000000',
  client_order_id: clientOrderId,
});

/** A JWT without nonce for POST /orders of `target`'s demo token, with the claims given. */
function orderToken(target: RunningSandbox, claims: object): Promise<string> {
  const { tokenId, tokenSecret } = target.credentials;
  return new SignJWT({ token_id: tokenId, path: '/orders', ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(tokenSecret));
}

const seconds = (ms: number) => Math.floor(ms / 1000);

function place(
  target: RunningSandbox,
  jwt: string,
  clientOrderId: string,
): Promise<ParsedResponse> {
  return send(
    target.exchangeUrl,
    'POST',
    '/orders',
    { 'X-Service-Auth': jwt, 'content-type': 'application/json' },
    JSON.stringify(order(clientOrderId)),
  );
}

async function placed(target: RunningSandbox, clientOrderIds: string[]): Promise<number> {
  const { rows } = await target.database.transaction((tx) =>
    tx.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM orders WHERE client_order_id = ANY($1::text[])',
      [clientOrderIds],
    ),
  );
  return rows[0]?.n ?? -1;
}

describe('an order JWT without nonce', () => {
  it('captured once and sent again with 5 other bodies places exactly one order', async () => {
    const run = randomUUID().slice(0, 8);
    const captured = await orderToken(sandbox, { iat: seconds(clock) });
    const ids = Array.from({ length: 6 }, (_, n) => `${run}-${n}`);
    const answers: ParsedResponse[] = [];
    for (const id of ids) answers.push(await place(sandbox, captured, id));
    valid(zCreateOrderResponse, answers[0] as ParsedResponse);
    for (const replay of answers.slice(1)) {
      expect([replay.status, replay.body]).toEqual([
        401,
        'Token already used: a token without nonce places one order (sign each with its own jti, or with a nonce)',
      ]);
    }
    expect(await placed(sandbox, ids)).toBe(1);
  });

  it('sent five times at once places one order', async () => {
    const run = randomUUID().slice(0, 8);
    const jwt = await orderToken(sandbox, { iat: seconds(clock), jti: run });
    const ids = Array.from({ length: 5 }, (_, n) => `${run}-${n}`);
    const answers = await Promise.all(ids.map((id) => place(sandbox, jwt, id)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401, 401, 401, 401]);
    expect(await placed(sandbox, ids)).toBe(1);
  });

  it('needs an iat within the window of the sandbox clock, either way', async () => {
    const run = randomUUID().slice(0, 8);
    const now = seconds(clock);
    const refused = [
      {},
      { iat: `${now}` },
      { iat: now - nonceLessWindowSeconds - 1 },
      { iat: now + nonceLessWindowSeconds + 1 },
    ];
    for (const [n, claims] of refused.entries()) {
      const answer = await place(sandbox, await orderToken(sandbox, claims), `${run}-r${n}`);
      expect([answer.status, answer.body], JSON.stringify(claims)).toEqual([
        401,
        `iat must be within ${nonceLessWindowSeconds} seconds of the server's clock on a token without nonce`,
      ]);
    }
    for (const iat of [now - nonceLessWindowSeconds, now + nonceLessWindowSeconds]) {
      const answer = await place(sandbox, await orderToken(sandbox, { iat }), `${run}-a${iat}`);
      expect(answer.status, String(iat)).toBe(200);
    }
  });

  it('is forgotten once its iat leaves the window, refused as stale from then on', async () => {
    const run = randomUUID().slice(0, 8);
    const jwt = await orderToken(sandbox, { iat: seconds(clock), jti: run });
    expect((await place(sandbox, jwt, `${run}-1`)).status).toBe(200);
    const kept = sandbox.sequencer.state.oneUseTokens.size;
    expect(kept).toBeGreaterThan(0);
    // Past the window of every JWT seen so far, those signed ahead of the clock included.
    clock += (2 * nonceLessWindowSeconds + 2) * 1000;
    const fresh = await orderToken(sandbox, { iat: seconds(clock), jti: `${run}-fresh` });
    expect((await place(sandbox, fresh, `${run}-2`)).status).toBe(200);
    expect(sandbox.sequencer.state.oneUseTokens.size).toBe(1);
    expect((await place(sandbox, jwt, `${run}-3`)).status).toBe(401);
  });

  it('as the exchange client signs them: many at once in one second, none refused', async () => {
    const { tokenId, tokenSecret } = sandbox.credentials;
    const run = randomUUID().slice(0, 8);
    const ids = Array.from({ length: 20 }, (_, n) => `${run}-${n}`);
    const realClock = clock;
    clock = Date.now();
    try {
      const answers = await Promise.all(
        ids.map(async (id) =>
          place(
            sandbox,
            await signServiceAuth(
              { tokenId, tokenSecret },
              { path: '/orders', withoutNonce: true },
            ),
            id,
          ),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 200));
    } finally {
      clock = realClock;
    }
  });

  it('is checked against the wall clock after test control moved the sandbox clock', async () => {
    const moved = await startTestSandbox({ now: () => clock, testControl: true });
    try {
      const day = 86_400;
      const advanced = await send(
        moved.exchangeUrl,
        'POST',
        '/test/clock',
        { 'content-type': 'application/json' },
        JSON.stringify({ advance_seconds: day }),
      );
      expect(advanced.status).toBe(200);
      // The caller's clock did not move: its JWT is signed by the time it reads.
      const run = randomUUID().slice(0, 8);
      const signed = await orderToken(moved, { iat: seconds(clock), jti: run });
      expect((await place(moved, signed, `${run}-wall`)).status).toBe(200);
      const ahead = await orderToken(moved, { iat: seconds(clock) + day, jti: run });
      expect((await place(moved, ahead, `${run}-moved`)).status).toBe(401);
    } finally {
      await moved.close();
    }
  });

  it('stays spent across a restart within its window', async () => {
    const serverUrl = process.env.SANDBOX_TEST_DATABASE_URL;
    const directory = serverUrl ? undefined : await mkdtemp(join(tmpdir(), 'sandbox-nonce-less-'));
    const store = serverUrl
      ? { databaseUrl: await freshDatabase(serverUrl) }
      : { dataDir: directory as string };
    let now = Date.now();
    try {
      const first = await startSandbox({ port: 0, ...store, now: () => now });
      const jwt = await orderToken(first, { iat: seconds(now) });
      expect((await place(first, jwt, 'before-restart')).status).toBe(200);
      await first.close();

      now += 5_000;
      const second = await startSandbox({ port: 0, ...store, now: () => now });
      try {
        const replay = await place(second, jwt, 'after-restart');
        expect(replay.status).toBe(401);
        expect(await placed(second, ['before-restart', 'after-restart'])).toBe(1);
        const fresh = await orderToken(second, { iat: seconds(now) });
        expect((await place(second, fresh, 'fresh-after-restart')).status).toBe(200);
      } finally {
        await second.close();
      }
    } finally {
      if (directory) await rm(directory, { recursive: true, force: true });
    }
  });
});
