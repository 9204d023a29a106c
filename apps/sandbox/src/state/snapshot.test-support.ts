import type { SandboxState } from './sandbox-state.js';

/** Everything the state holds, as plain values, ids and all. */
export function snapshot(sandbox: SandboxState) {
  const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
  const state = sandbox.exchange;
  const byId = <Row extends { id: string }>(rows: Iterable<Row>) =>
    plain([...rows].sort((a, b) => a.id.localeCompare(b.id)));
  return {
    oauthRequests: plain([...state.oauthRequests.values()]),
    sessions: byId(sandbox.partner.sessions.values()),
    intents: byId(sandbox.partner.intents.values()),
    transactions: byId(sandbox.partner.transactions.values()),
    instructions: byId(sandbox.partner.instructions.values()),
    clocks: plain([...sandbox.partner.clocks.values()].sort((a, b) => a.partnerId - b.partnerId)),
    orders: plain([...state.orders.values()].sort((a, b) => a.id - b.id)),
    accounts: plain(
      [...state.accounts.values()].flatMap((byCurrency) => [...byCurrency.values()]),
    ).sort((a: { id: number }, b: { id: number }) => a.id - b.id),
    // The fills memory holds: those not stored yet, and each product's last day in seconds.
    fills: plain(state.fillsByProduct.all().sort((a, b) => a.id - b.id)),
    // A product whose only fills were taken back holds none, as one that never traded.
    tradedSeconds: plain(
      [...state.traded]
        .map(([product, traded]) => [product, traded.held()] as const)
        .filter(([, held]) => held.seconds.length + held.unstored.length > 0)
        .sort(([a], [b]) => a - b),
    ),
    // A product whose only fills were taken back has none, as one that never traded.
    fillCounts: [...state.traded]
      .filter(([, traded]) => traded.count > 0)
      .sort(([a], [b]) => a - b)
      .map(([product, traded]) => [product, traded.count]),
    // A place taken back by a refused call leaves a count of none, as no fill did.
    ownFillCounts: Object.fromEntries(
      [...state.ownFillCounts]
        .filter(([, count]) => count > 0)
        .sort(([a], [b]) => a.localeCompare(b)),
    ),
    lastStoredFill: Object.fromEntries(state.lastStoredFill),
    nonces: Object.fromEntries([...sandbox.nonces].map(([scope, value]) => [scope, String(value)])),
    positions: plain([...state.positions.values()].sort((a, b) => a.id - b.id)),
    entries: plain(state.entriesByUser.all().sort((a, b) => a.id - b.id)),
    withdrawals: plain([...state.withdrawals.values()].sort((a, b) => a.id - b.id)),
    loanBids: plain([...state.loanBids.values()].sort((a, b) => a.id - b.id)),
    loans: plain([...state.loans.values()].sort((a, b) => a.id - b.id)),
    deposits: plain([...state.deposits.values()].sort((a, b) => a.id - b.id)),
    leverageSettings: plain(
      [...state.leverageSettings.values()].sort((a, b) => a.tradingAccountId - b.tradingAccountId),
    ),
    books: [...state.books]
      .sort(([a], [b]) => a - b)
      .map(([product, book]) => [
        product,
        [...book.buy.bestFirst()].map((order) => order.id),
        [...book.sell.bestFirst()].map((order) => order.id),
      ]),
    next: { ...state.next },
    users: plain([...state.users.values()].sort((a, b) => a.id - b.id)),
    tokens: plain([...state.tokens].sort(([a], [b]) => a.localeCompare(b))),
    products: plain([...state.products.values()].sort((a, b) => a.id - b.id)),
    applications: plain([...sandbox.partner.applications.values()].sort((a, b) => a.id - b.id)),
  };
}
