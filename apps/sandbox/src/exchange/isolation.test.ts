/**
 * One call the store refuses, in the middle of another user's concurrent calls: that call
 * alone gets an error, every other call is answered and kept, and memory agrees with the
 * store afterwards. The store refuses through a trigger, as a constraint would.
 */
import { signServiceAuth } from '@exchange-kit/core/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addProduct } from '../seeding.js';
import type { RunningSandbox } from '../server.js';
import {
  type Client,
  newUser,
  type ParsedResponse,
  send,
  startTestSandbox,
} from '../test-support.js';

let sandbox: RunningSandbox;
const logged: string[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox({
    logDestination: { write: (line: string) => void logged.push(line) },
  });
  await sandbox.database.transaction(async (tx) => {
    await tx.query(`CREATE FUNCTION refuse_marked_order() RETURNS trigger AS $$
      BEGIN
        IF NEW.client_order_id LIKE 'refused-by-store-%' THEN
          RAISE EXCEPTION 'refused by the store';
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await tx.query(`CREATE TRIGGER refuse_marked_order BEFORE INSERT OR UPDATE ON orders
      FOR EACH ROW EXECUTE FUNCTION refuse_marked_order()`);
  });
});
afterAll(() => sandbox.close());

const limitBuy = {
  order_type: 'limit',
  product_id: 1,
  side: 'buy',
  quantity: '0.001',
  price: '100',
};

interface Account {
  currency: string;
  balance: string;
  reserved_balance: string;
}

function jpy(answer: ParsedResponse): Account | undefined {
  const body = answer.body as { fiat_accounts: Account[] };
  return body.fiat_accounts.find((account) => account.currency === 'JPY');
}

/**
 * An order carrying a client_order_id, signed without a nonce as the conventions allow, so
 * that many can be in flight at once from one token.
 */
async function placeWithoutNonce(
  user: { tokenId: string; tokenSecret: string },
  body: Record<string, unknown>,
): Promise<ParsedResponse> {
  const jwt = await signServiceAuth(user, { path: '/orders', withoutNonce: true });
  return send(
    sandbox.exchangeUrl,
    'POST',
    '/orders',
    { 'X-Service-Auth': jwt, 'content-type': 'application/json' },
    JSON.stringify(body),
  );
}

describe('a call the store refuses', () => {
  it('fails alone: 0 errors for another user placing and cancelling meanwhile', async () => {
    const victim = await newUser(sandbox);
    const other = await newUser(sandbox);
    const before = jpy(await victim.call('GET', '/accounts'));
    const rounds = 5;
    const perRound = 30;
    const otherAnswers: ParsedResponse[] = [];
    const refused: ParsedResponse[] = [];
    const started = Date.now();
    for (let round = 0; round < rounds && Date.now() - started < 20_000; round++) {
      const load = Array.from({ length: perRound }, (_, index) =>
        placeWithoutNonce(other, { ...limitBuy, client_order_id: `load-${round}-${index}` }),
      );
      const bad = placeWithoutNonce(victim, {
        ...limitBuy,
        client_order_id: `refused-by-store-${round}`,
      });
      const cancel =
        round === 0
          ? placeWithoutNonce(other, { ...limitBuy, client_order_id: 'load-first' })
          : other.call('PUT', `/orders/client:load-${round - 1}-0/cancel`);
      const answers = await Promise.all([...load, bad, cancel]);
      refused.push(answers[perRound] as ParsedResponse);
      otherAnswers.push(...answers.slice(0, perRound), answers[perRound + 1] as ParsedResponse);
    }

    const failures = otherAnswers.filter((answer) => answer.status !== 200);
    expect(failures.map((answer) => [answer.status, answer.body])).toEqual([]);
    expect(otherAnswers).toHaveLength(rounds * (perRound + 1));
    for (const answer of refused) expect(answer.status).toBeGreaterThanOrEqual(500);
    // Each refused call is logged once, as its own error.
    const internal = logged.filter((line) => line.includes('"msg":"internal error"'));
    expect(internal).toHaveLength(rounds);

    // Nothing of the refused calls is shown, and the victim's funds are as they were.
    for (let round = 0; round < rounds; round++) {
      const order = await victim.call('GET', `/orders/client:refused-by-store-${round}`);
      expect(order.status).toBe(404);
    }
    expect(jpy(await victim.call('GET', '/accounts'))).toEqual(before);

    // Every order the other user was told it placed is in the store, and memory agrees.
    const listed = await other.call('GET', '/orders?limit=1000');
    const inMemory = (listed.body as { models: unknown[] }).models.length;
    const { rows } = await sandbox.database.read((tx) =>
      tx.query<{ n: number }>('SELECT count(*)::int AS n FROM orders WHERE user_id = $1', [
        other.userId,
      ]),
    );
    expect(rows[0]?.n).toBe(rounds * perRound + 1);
    expect(inMemory).toBe(rounds * perRound + 1);
  });

  it('refuses too a call decided on its rows, and leaves memory as the store', async () => {
    const product = await sandbox.sequencer.run((journal) =>
      addProduct(journal, { base: 'BTC', quote: 'JPY' }),
    );
    const victim = await newUser(sandbox);
    const seller = await newUser(sandbox);
    const statuses: number[][] = [];
    for (let round = 0; round < 5; round++) {
      const cross = { order_type: 'limit', product_id: product, quantity: '0.001', price: '1000' };
      const answers = await Promise.all([
        placeWithoutNonce(victim, {
          ...cross,
          side: 'buy',
          client_order_id: `refused-by-store-cross-${round}`,
        }),
        placeWithoutNonce(seller, { ...cross, side: 'sell', client_order_id: `cross-${round}` }),
      ]);
      statuses.push(answers.map((answer) => answer.status));
    }
    // The refused buy never shows; a sell that met it is refused with it, else it rests.
    for (const [buy] of statuses) expect(buy).toBeGreaterThanOrEqual(500);
    await expectMemoryAsStore(victim);
    await expectMemoryAsStore(seller);
    const listed = await seller.call('GET', `/orders?product_id=${product}`);
    const models = (listed.body as { models: { status: string }[] }).models;
    expect(models.every((order) => order.status === 'live')).toBe(true);
    expect(models).toHaveLength(statuses.filter(([, sell]) => sell === 200).length);
  });
});

/** What the user's calls show (memory) is what the store holds. */
async function expectMemoryAsStore(user: { userId: number; call: Client }): Promise<void> {
  const shown = (await user.call('GET', '/accounts')).body as {
    crypto_accounts: Account[];
    fiat_accounts: Account[];
  };
  const inMemory = [...shown.crypto_accounts, ...shown.fiat_accounts]
    .map((account) => [account.currency, Number(account.balance), Number(account.reserved_balance)])
    .sort();
  const { rows } = await sandbox.database.read((tx) =>
    tx.query<{ currency: string; balance: string; reserved_balance: string }>(
      'SELECT currency, balance::text, reserved_balance::text FROM accounts WHERE user_id = $1',
      [user.userId],
    ),
  );
  const stored = rows
    .map((row) => [row.currency, Number(row.balance), Number(row.reserved_balance)])
    .sort();
  expect(inMemory).toEqual(stored);
}
