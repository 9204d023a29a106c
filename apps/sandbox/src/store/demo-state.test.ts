import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCredentials } from '../config.js';
import { demoAssets, demoPrices } from '../demo-market.js';
import type { SandboxState } from '../state/sandbox-state.js';
import type { Sequencer } from '../state/sequencer.js';
import { startTestSandbox } from '../test-support.js';
import { memorySandbox } from '../testing/memory-sandbox.js';

const now = () => 1_716_000_000_000;

/** What a state holds, but the market maker's token, which each start draws at random. */
function holdings({ exchange, partner }: SandboxState) {
  const tokens = [...exchange.tokens].filter(([id]) => !id.startsWith('token-'));
  return {
    currencies: exchange.currencies,
    products: exchange.products,
    users: exchange.users,
    tokens,
    accounts: exchange.accounts,
    orders: exchange.orders,
    loanBook: exchange.loanBook,
    next: exchange.next,
    applications: partner.applications,
    assets: partner.assets,
    prices: [...partner.prices].sort((a, b) =>
      `${a.base}/${a.quote}`.localeCompare(`${b.base}/${b.quote}`),
    ),
  };
}

/** Every entry of each of `users`, as history answers them. */
const ledgers = (sequencer: Sequencer, users: number[]) =>
  sequencer.read((history) =>
    Promise.all(users.map((userId) => history.entries(userId, {}, 0, 1000))),
  );

// Tests of the rules start from the demo state built in memory; the sandbox starts from the
// store its seed and migrations wrote. The two must be one state, or the rules are tested
// on a market no sandbox serves.
describe('the demo state', () => {
  let stored: Awaited<ReturnType<typeof startTestSandbox>>;

  beforeAll(async () => {
    stored = await startTestSandbox({ now, credentials: defaultCredentials });
  });
  afterAll(() => stored?.close());

  it('built in memory is the one the seed writes and the store reads back', async () => {
    const memory = await memorySandbox({ now, credentials: defaultCredentials });
    expect(holdings(memory.sequencer.state)).toEqual(holdings(stored.sequencer.state));
    // The ledger is history, which the store answers for.
    const users = [...memory.sequencer.state.exchange.users.keys()];
    expect(await ledgers(stored.sequencer, users)).toEqual(await ledgers(memory.sequencer, users));
  });

  it("has Quick Exchange's assets and prices as the migrations write them", () => {
    const { partner } = stored.sequencer.state;
    expect([...partner.assets.values()]).toEqual(expect.arrayContaining(demoAssets()));
    expect(partner.assets.size).toBe(demoAssets().length);
    expect(partner.prices).toEqual(expect.arrayContaining(demoPrices()));
    expect(partner.prices.length).toBe(demoPrices().length);
  });
});
