import { describe, expect, it } from 'vitest';
import { Changes, Journal } from './journal.js';
import { D, type OAuthRequest, type Order, type Position } from './records.js';
import { SandboxState } from './sandbox-state.js';

const position = (id: number, userId: number): Position => ({
  id,
  userId,
  productId: 1,
  tradingType: 'margin',
  side: 'buy',
  leverageLevel: 2,
  fundingCurrency: 'JPY',
  quantity: new D(1),
  openValue: new D(100),
  closedQuantity: new D(0),
  closedValue: new D(0),
  closedCost: new D(0),
  margin: new D(50),
  realizedPnl: new D(0),
  closeFee: new D(0),
  status: 'open',
  place: id,
  orderId: null,
  createdAt: 1_000,
  updatedAt: 1_000,
});

const request = (): OAuthRequest => ({
  publicId: '09188d8a-34c8-46a0-9763-3652c91f5011',
  privateId: '811603ef-12d0-4235-bfd2-9a58b2cd2119',
  appTokenId: '3141592',
  externalRef: null,
  createdAt: 1_000,
  expiresAt: 2_000,
  approvedByUserId: null,
  approvedAt: null,
  deniedAt: null,
});

/**
 * Never called: `tsc --noEmit` (the package's typecheck) fails if any of these assignments
 * compiles, that is, if a state object can be changed without the handle the Journal hands
 * out, whose changes it stores.
 */
export function changesWithoutTouchDoNotCompile(
  journal: Journal,
  order: Order,
  stored: OAuthRequest,
): void {
  // @ts-expect-error an order read from the state is read-only
  order.price = new D(1);
  // @ts-expect-error so is a record
  stored.approvedByUserId = 1;
  const account = journal.exchange.account(1, 'USD');
  // @ts-expect-error so is an account
  if (account) account.balance = new D(0);
  const session = journal.partner.sessions.get('id');
  // @ts-expect-error so is a session
  if (session) session.createdAt = 0;
  if (account) {
    // @ts-expect-error a balance moves only as a ledger entry is posted (appendEntry)
    journal.touchAccount(account).balance = new D(0);
    // @ts-expect-error nor through an account a call opens
    journal.openAccount(1, 'USD', 'address').balance = new D(0);
    // Its reserved balance is the handle's to change.
    journal.touchAccount(account).reserved = new D(0);
  }
  // The handles are writable: the same objects, known to the journal.
  journal.touchOrder(order).price = new D(1);
  journal.touch('oauthRequest', stored).approvedByUserId = 1;
}

describe('Journal', () => {
  it('moves a balance only with the entry that explains it, and undoes both together', () => {
    const state = new SandboxState();
    const account = state.exchange.openAccount(7, 'JPY', 'address');
    const journal = new Journal(state);
    const entry = journal.appendEntry({
      userId: 7,
      currency: 'JPY',
      amount: new D('1425.00015'),
      sourceAction: 'funding',
      sourceObjectType: null,
      sourceObjectId: null,
      createdAt: 1_000,
    });
    expect(account.balance.toFixed()).toBe('1425.00015');
    expect(entry.balance.toFixed()).toBe('1425.00015');
    expect(state.exchange.entriesByUser.of(7)).toEqual([entry]);
    journal.undo();
    expect(account.balance.toFixed()).toBe('0');
    expect(state.exchange.entriesByUser.of(7)).toEqual([]);
  });

  it('hands out the stored object itself as the writable handle, and stores what it became', () => {
    const state = new SandboxState();
    const added = new Journal(state).add('oauthRequest', request());
    const journal = new Journal(state);
    const handle = journal.touch('oauthRequest', added);
    expect(handle).toBe(added);
    handle.approvedByUserId = 7;
    const changes = new Changes();
    journal.mergeInto(changes);
    const stored = [...changes.records.values()];
    expect(stored).toHaveLength(1);
    expect(stored[0]?.row).toMatchObject({ approvedByUserId: 7 });
    expect(stored[0]?.kind).toBe('oauthRequest');
  });

  it('puts a touched record back as it was on undo, and drops one it added', () => {
    const state = new SandboxState();
    const kept = new Journal(state).add('oauthRequest', request());
    const journal = new Journal(state);
    journal.touch('oauthRequest', kept).expiresAt = 5_000;
    const other = { ...request(), publicId: 'a', privateId: 'b' };
    journal.add('oauthRequest', other);
    expect(state.exchange.oauthRequests.get('a')).toBe(other);
    journal.undo();
    expect(kept.expiresAt).toBe(2_000);
    expect(state.exchange.oauthRequests.has('a')).toBe(false);
  });

  it("keeps each user's positions as they are opened, undone and let go of once stored", () => {
    const state = new SandboxState();
    const { exchange } = state;
    const kept = new Journal(state).addPosition(position(1, 7));
    new Journal(state).addPosition(position(2, 8));
    const refused = new Journal(state);
    refused.addPosition(position(3, 7));
    expect(exchange.positionsOfUser(7).map((held) => held.id)).toEqual([1, 3]);
    refused.undo();
    expect(exchange.positionsOfUser(7).map((held) => held.id)).toEqual([1]);
    expect(exchange.positionsOfUser(8).map((held) => held.id)).toEqual([2]);
    new Journal(state).touchPosition(kept).status = 'closed';
    exchange.forgetPosition(kept);
    expect(exchange.positionsOfUser(7)).toEqual([]);
    expect([...exchange.positions.keys()]).toEqual([2]);
  });

  it("keeps each user's withdrawals and deposits, and forgets those of a refused call", () => {
    const state = new SandboxState();
    const { exchange } = state;
    const withdrawal = {
      id: 1,
      userId: 7,
      kind: 'crypto' as const,
      currency: 'BTC',
      amount: new D(1),
      fee: new D(0),
      state: 'pending' as const,
      address: null,
      network: null,
      paymentId: null,
      memoType: null,
      memoValue: null,
      transactionHash: null,
      bankAccountId: null,
      createdAt: 1_000,
      updatedAt: 1_000,
    };
    const deposit = {
      id: 1,
      userId: 7,
      currency: 'BTC',
      amount: new D(1),
      state: 'requested' as const,
      transactionHash: null,
      createdAt: 1_000,
      updatedAt: 1_000,
    };
    new Journal(state).add('withdrawal', withdrawal);
    const refused = new Journal(state);
    refused.add('withdrawal', { ...withdrawal, id: 2 });
    refused.add('deposit', deposit);
    expect(exchange.withdrawalsOfUser(7).map((held) => held.id)).toEqual([1, 2]);
    expect(exchange.depositsOfUser(7)).toEqual([deposit]);
    refused.undo();
    expect(exchange.withdrawalsOfUser(7).map((held) => held.id)).toEqual([1]);
    expect(exchange.depositsOfUser(7)).toEqual([]);
    expect(exchange.withdrawalsOfUser(8)).toEqual([]);
  });

  it('tells a batch which of its records the store holds none of yet', () => {
    const state = new SandboxState();
    const kept = new Journal(state).add('oauthRequest', request());
    const changes = new Changes();
    // One call adds a record and changes one the store holds; the next changes both.
    const first = new Journal(state);
    const other = first.add('oauthRequest', { ...request(), publicId: 'a', privateId: 'b' });
    first.touch('oauthRequest', kept).expiresAt = 3_000;
    first.mergeInto(changes);
    const second = new Journal(state);
    second.touch('oauthRequest', other).expiresAt = 4_000;
    second.touch('oauthRequest', kept).expiresAt = 5_000;
    second.mergeInto(changes);
    expect(changes.records.size).toBe(2);
    expect([...changes.addedRecords]).toEqual(['oauthRequest:a']);
    changes.clearRows();
    expect(changes.addedRecords.size).toBe(0);
  });

  it('merges a call of more fills than a call may spread as arguments into its batch', () => {
    const state = new SandboxState();
    // Two orders of two users that no book holds: one call fills the one against the other.
    const filled = (id: number, userId: number) =>
      ({ id, userId, productId: 1, status: 'filled', conditional: false }) as Order;
    state.exchange.addOrder(filled(1, 7));
    state.exchange.addOrder(filled(2, 8));
    const journal = new Journal(state);
    // Each fill is two own fills: 200,000 rows, past what push(...rows) takes.
    const fills = 100_000;
    for (let id = 1; id <= fills; id++) {
      journal.addFill({
        id,
        productId: 1,
        takerOrderId: 1,
        makerOrderId: 2,
        takerSide: 'buy',
        price: new D(100),
        quantity: new D(1),
        createdAt: 1_000,
        takerPnl: null,
        makerPnl: null,
      });
    }
    const changes = new Changes();
    journal.mergeInto(changes);
    expect(changes.fills).toHaveLength(fills);
    expect(changes.ownFills).toHaveLength(2 * fills);
    expect(changes.ownFills.at(-1)).toMatchObject({ userId: 7, place: fills, taker: true });
  });
});
