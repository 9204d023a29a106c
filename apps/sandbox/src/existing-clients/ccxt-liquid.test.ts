/**
 * ccxt's `liquid` class, as published (ccxt 2.2.23, the last release that has it), against the
 * sandbox. It speaks the exchange's earlier names: X-Quoine-Auth and X-Quoine-API-Version on
 * every call, `with_details=true` in fetchMyTrades. A trailing slash it never sends by itself is
 * sent through its own signer (`request('orders/', ...)`), so the path it signs has the slash.
 *
 * The class has no fetchOHLCV and no fetchDeposits.
 *
 * ccxt's own bugs, worked around here:
 * - fetchMarkets reads `options.fetchMarkets.settlementCurrencies`, which the class keeps under
 *   `options.swap`, and fails on the first perpetual product: the option is given where it is
 *   read. It also pushes one market object per settlement currency, all the same object, so only
 *   USD, the perpetual's own, is given.
 * - withdraw sends the amount it is given as it is, and its docs give it a float, which JSON
 *   carries as a number: the interface takes a decimal string, which keeps every digit, and
 *   refuses a number naming `crypto_withdrawal.amount`. The amount is given as a string.
 * - Its nonce is the time in milliseconds, so two private calls in the same millisecond carry
 *   the same nonce and the second is refused: the nonce given here rises by one at least.
 */
import ccxt from 'ccxt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MemoryApp, memoryApp } from '../testing/memory-app.js';

let app: MemoryApp['app'];
let liquid: InstanceType<typeof ccxt.liquid>;

beforeAll(async () => {
  const started = await memoryApp();
  app = started.app;
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  let lastNonce = 0;
  liquid = new ccxt.liquid({
    apiKey: started.sandbox.credentials.tokenId,
    secret: started.sandbox.credentials.tokenSecret,
    enableRateLimit: false,
    options: { fetchMarkets: { settlementCurrencies: ['USD'] } },
  });
  // As ccxt's manual points a class at a test server: its URLs replaced once it is built.
  liquid.urls.api = { rest: url };
  liquid.nonce = () => {
    lastNonce = Math.max(lastNonce + 1, Date.now());
    return lastNonce;
  };
});
afterAll(() => app.close());

const btcJpy = 'BTC/JPY';
/** Below the market maker's best bid: rests in the book. */
const restingPrice = 9_000_000;
/** The market maker's best ask: fills at once. */
const crossingPrice = 9_500_001;

describe("ccxt's liquid class", () => {
  it('reads markets, a ticker and an order book', async () => {
    const markets = await liquid.fetchMarkets();
    const symbols = markets.map((market) => market.symbol);
    expect(symbols).toEqual(expect.arrayContaining([btcJpy, 'ETH/JPY', 'BTC/USD:USD']));
    await liquid.loadMarkets();

    const ticker = await liquid.fetchTicker(btcJpy);
    expect(ticker).toMatchObject({ symbol: btcJpy, bid: 9_499_999, ask: crossingPrice });

    const book = await liquid.fetchOrderBook(btcJpy);
    expect(book.bids[0]).toEqual([9_499_999, 0.5]);
    expect(book.asks[0]).toEqual([crossingPrice, 0.3]);
  });

  it('places, reads, lists, edits and cancels a limit order', async () => {
    const placed = await liquid.createOrder(btcJpy, 'limit', 'buy', 0.01, restingPrice);
    expect(placed).toMatchObject({ status: 'open', price: restingPrice, amount: 0.01 });

    const read = await liquid.fetchOrder(placed.id, btcJpy);
    expect(read).toMatchObject({ id: placed.id, symbol: btcJpy, status: 'open' });

    const open = await liquid.fetchOpenOrders(btcJpy);
    expect(open.map((order) => order.id)).toContain(placed.id);

    const edited = await liquid.editOrder(placed.id, btcJpy, 'limit', 'buy', 0.02, 9_000_100);
    expect(edited).toMatchObject({ id: placed.id, price: 9_000_100, amount: 0.02 });

    const cancelled = await liquid.cancelOrder(placed.id, btcJpy);
    expect(cancelled).toMatchObject({ id: placed.id, status: 'canceled' });
    const all = await liquid.fetchOrders(btcJpy);
    expect(all.find((order) => order.id === placed.id)?.status).toBe('canceled');
  });

  it('reads public fills, its own fills with their order, and its balance', async () => {
    const before = Date.now() - 1000;
    const filled = await liquid.createOrder(btcJpy, 'limit', 'buy', 0.01, crossingPrice);
    const order = await liquid.fetchOrder(filled.id, btcJpy);
    expect(order).toMatchObject({ status: 'closed', filled: 0.01 });
    // ccxt reads order_fee in the quote currency: the taker's 0.15% of 95000.01 JPY.
    expect(order.fee?.currency).toBe('JPY');
    expect(order.fee?.cost).toBeCloseTo(0.01 * crossingPrice * 0.0015, 6);
    const closed = await liquid.fetchClosedOrders(btcJpy);
    expect(closed.map((each) => each.id)).toContain(filled.id);

    const trades = await liquid.fetchTrades(btcJpy);
    expect(trades[0]).toMatchObject({ price: crossingPrice, amount: 0.01, side: 'buy' });
    const since = await liquid.fetchTrades(btcJpy, before);
    expect(since.map((trade) => trade.id)).toContain(trades[0]?.id);

    const mine = await liquid.fetchMyTrades(btcJpy);
    expect(mine[0]).toMatchObject({ order: filled.id, side: 'buy', takerOrMaker: 'taker' });

    const balance = await liquid.fetchBalance();
    expect(balance.BTC?.total).toBeGreaterThan(0);
    expect(balance.JPY?.total).toBeGreaterThan(0);
  });

  it('sees a market order the book cannot fill whole as short of its amount', async () => {
    const asked = 1000;
    const bought = await liquid.createOrder(btcJpy, 'market', 'buy', asked);
    expect(bought.amount).toBe(asked);
    expect(bought.filled).toBeGreaterThan(0);
    expect(bought.filled).toBeLessThan(asked);
    expect(bought.status).toBe('canceled');
  });

  it('withdraws and lists its withdrawals', async () => {
    const address = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
    const ethAddress = '0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c';
    // Given as the decimal string the interface takes (see above).
    const withdrawn = await liquid.withdraw('BTC', '0.01' as unknown as number, address);
    // ccxt gives the amount that arrives: what was asked less the currency's fee.
    const asWithdrawn = { amount: 0.0095, fee: { currency: 'BTC', cost: 0.0005 }, address };
    expect(withdrawn).toMatchObject({ ...asWithdrawn, currency: 'BTC', status: 'pending' });
    // ccxt upper-cases the network it is given, and names Ether's ERC20.
    const onNetwork = await liquid.withdraw(
      'ETH',
      '0.1' as unknown as number,
      ethAddress,
      undefined,
      {
        network: 'ETH',
      },
    );
    expect(onNetwork).toMatchObject({ currency: 'ETH', status: 'pending' });
    const listed = await liquid.fetchWithdrawals('BTC');
    expect(listed.find((each) => each.id === withdrawn.id)).toMatchObject({
      ...asWithdrawn,
      type: 'withdrawal',
    });
  });

  it('signs a path with a trailing slash as it sends it', async () => {
    const body = { order_type: 'limit', product_id: 1, side: 'buy', quantity: '0.01' };
    const answer = await liquid.request('orders/', 'private', 'POST', {
      ...body,
      price: String(restingPrice),
    });
    expect(answer).toMatchObject({ status: 'live', side: 'buy' });
    await liquid.cancelOrder(String(answer.id), btcJpy);
  });
});
