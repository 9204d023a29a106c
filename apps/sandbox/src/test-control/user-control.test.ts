import {
  zGetUserContextResponse,
  zListAccountBalancesResponse,
} from '@exchange-kit/contract/exchange/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { startingBalances } from '../demo-market.js';
import { type MemoryApp, memoryApp } from '../testing/memory-app.js';
import { signedNow } from '../testing/memory-sandbox.js';

let started: MemoryApp;

beforeAll(async () => {
  started = await memoryApp({ testControl: true });
});
afterAll(() => started?.app.close());

const post = async (payload: Record<string, unknown>) => {
  const answer = await started.app.inject({ method: 'POST', url: '/test/users', payload });
  return { status: answer.statusCode, body: answer.json() as Record<string, unknown> };
};

/** A signed GET as the user whose token `added` answered. */
async function getAs(added: Record<string, unknown>, path: string) {
  const token = { tokenId: String(added.token_id), tokenSecret: String(added.token_secret) };
  const answer = await started.app.inject({
    method: 'GET',
    url: path,
    headers: { 'x-service-auth': signedNow(token, { path }) },
  });
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json() as unknown;
}

describe('POST /test/users', () => {
  it('adds a user with the starting balances and a token that signs its calls', async () => {
    const alice = await post({ first_name: 'Alice' });
    const other = await post({});
    expect([alice.status, other.status]).toEqual([200, 200]);
    expect(other.body.user_id).toBe(Number(alice.body.user_id) + 1);
    expect(other.body.token_id).not.toBe(alice.body.token_id);
    const context = z.parse(zGetUserContextResponse, await getAs(alice.body, '/user/context'));
    expect(context).toMatchObject({ user_id: alice.body.user_id, first_name: 'Alice' });
    const balances = z.parse(
      zListAccountBalancesResponse,
      await getAs(other.body, '/accounts/balance'),
    );
    expect(
      Object.fromEntries(balances.map((account) => [account.currency, account.balance])),
    ).toEqual(startingBalances);
  });

  it('refuses a first_name that is not 1 to 100 characters of text, adding nobody', async () => {
    const users = () => started.sandbox.sequencer.state.exchange.users.size;
    const before = users();
    const refused: [unknown, string][] = [
      [5, 'must_be_a_string'],
      ['', 'must_be_1_to_100_characters'],
      ['x'.repeat(101), 'must_be_1_to_100_characters'],
      ['a\u0000b', 'must_not_contain_nul'],
    ];
    for (const [first_name, code] of refused) {
      expect(await post({ first_name })).toEqual({
        status: 422,
        body: { errors: { first_name: [code] } },
      });
    }
    expect(users()).toBe(before);
  });
});
