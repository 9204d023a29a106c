import { Decimal } from 'decimal.js';
import { bodyOf, type CallOptions } from './context.js';
import { type RecordedCall, SetupError, Skip } from './outcome.js';
import type { Target } from './target.js';

/** A product the order fixtures trade, with prices that rest in its book or cross it. */
export interface ProductInfo {
  id: string;
  baseCurrency: string;
  marginEnabled: boolean;
  /** The smallest quantity an order may have. */
  quantity: string;
  /** A buy price far below the market: the order rests. */
  restingBuyPrice: string;
  /** A sell price far above the market: the order rests. */
  restingSellPrice: string;
  /** A buy price above the best ask: the order fills at once. */
  crossingBuyPrice: string;
  /**
   * A sell price below the best bid: the order fills at once. Without it no filled sell is
   * placed, and what needs one (a short) is SKIPped.
   */
  crossingSellPrice?: string;
}

/** The body of a limit buy of `product`'s smallest quantity that rests in its book. */
export const restingBuy = (product: ProductInfo, clientOrderId?: string) => ({
  order_type: 'limit',
  product_id: product.id,
  side: 'buy',
  quantity: product.quantity,
  price: product.restingBuyPrice,
  ...(clientOrderId === undefined ? {} : { client_order_id: clientOrderId }),
});

/** Two products, so that cancel_all's product filter has orders to leave alone. */
export interface Market {
  primary: ProductInfo;
  secondary?: ProductInfo;
}

export type TradingType = 'spot' | 'margin';

export interface OrderFixture {
  product: ProductInfo;
  side: 'buy' | 'sell';
  tradingType: TradingType;
  /** Prefixed with the run id, so a run finds (and cleans up) what it made. */
  clientOrderId: string;
  /** The quantity to place: the product's smallest (`product.quantity`) when absent. */
  quantity?: string;
  /** The currency a margin order is funded in: the product's quote currency when absent. */
  fundingCurrency?: string;
}

export interface OrderRef {
  id: string | number;
  clientOrderId: string | null;
  productId: string;
  side: 'buy' | 'sell';
  tradingType: TradingType;
}

export interface OAuthRequestView {
  publicId: string;
  privateId: string;
  apiChallengeHref: string;
}

/** What an adapter step may use: the suite's own signed calls of the spec operations. */
export interface AdapterContext {
  target: Target;
  runId: string;
  call(operationId: string, options?: CallOptions): Promise<RecordedCall>;
}

/**
 * How the suite makes its fixtures. The default uses only the public API (POST /orders, the
 * approve href); a module replaces any step for a server that makes them another way. A step
 * set to `null`, or one that throws `Skip`, means the server cannot: the requirements that
 * need it are SKIPped with the reason.
 */
export interface ConformanceAdapter {
  discoverMarket?: ((context: AdapterContext) => Promise<Market>) | null;
  placeLiveOrder?:
    | ((context: AdapterContext, fixture: OrderFixture, market: Market) => Promise<OrderRef>)
    | null;
  placeFilledOrder?:
    | ((context: AdapterContext, fixture: OrderFixture, market: Market) => Promise<OrderRef>)
    | null;
  /** Live conditional orders (take profit / stop loss on a position), which cancel_all must leave. */
  placeConditionalOrders?:
    | ((context: AdapterContext, fixture: OrderFixture, market: Market) => Promise<OrderRef[]>)
    | null;
  approveOAuthRequest?:
    | ((context: AdapterContext, request: OAuthRequestView) => Promise<void>)
    | null;
  /**
   * Denies an OAuth request as its user would at `app_challenge_href`; the interfaces have no
   * call for it. Without it the requirement on a denied request's ids is SKIPped.
   */
  denyOAuthRequest?: ((context: AdapterContext, request: OAuthRequestView) => Promise<void>) | null;
  /**
   * Ends a Quick Exchange transaction in a terminal state of the transaction table (FILLED or
   * CANCELLED), as the exchange itself would; the interfaces have no call for it. Without it
   * the model profile's transaction sequences leave that step out.
   */
  endTransaction?:
    | ((
        context: AdapterContext,
        transactionId: string,
        status: 'FILLED' | 'CANCELLED',
      ) => Promise<void>)
    | null;
  /**
   * Moves a withdrawal of the token's user on as the exchange would (`processing`, then
   * `processed`, or `declined`); the interfaces have no call for it. Without it the
   * requirements on those moves are SKIPped.
   */
  moveWithdrawal?:
    | ((
        context: AdapterContext,
        withdrawalId: number,
        state: 'processing' | 'processed' | 'declined',
      ) => Promise<void>)
    | null;
  /**
   * Credits a deposit of `amount` of `currency` received for `userId` (the token's user), as
   * the exchange does once funds arrive; the interfaces have no call for it. Without it the
   * requirement on a credited deposit is SKIPped.
   */
  creditDeposit?:
    | ((
        context: AdapterContext,
        deposit: { userId: string; currency: string; amount: string },
      ) => Promise<void>)
    | null;
  /**
   * Moves a product's mark price, the price open trades are valued at, as the exchange's price
   * feed would; the interfaces have no call for it. Without it the requirements on what the
   * mark closes (a stop loss, a liquidation) are SKIPped.
   */
  moveMarkPrice?:
    | ((context: AdapterContext, productId: string, price: string) => Promise<void>)
    | null;
  /**
   * Moves the exchange's clock `seconds` on, as time passing would; the interfaces have no call
   * for it. Without it the requirement on the interest a loan accrues is SKIPped.
   */
  advanceClock?: ((context: AdapterContext, seconds: number) => Promise<void>) | null;
  /**
   * Has another trader borrow `quantity` from a live loan bid of the token's user, as a margin
   * trade would; one user's credentials cannot make another user trade. Without it the
   * requirement on a lender's choice is SKIPped.
   */
  borrowFromLoanBid?:
    | ((context: AdapterContext, loanBidId: string, quantity: string) => Promise<void>)
    | null;
  /**
   * Has the borrower of a loan that `borrowFromLoanBid` made repay all of it. Without it the
   * requirement on a lender's choice is SKIPped.
   */
  repayLoan?: ((context: AdapterContext, loanId: string) => Promise<void>) | null;
  /**
   * The credentials of another trader of the exchange, one the caller has never dealt with,
   * funded in the market's currencies: what rules between two users need (a trade of the
   * caller's borrowing from another's loan bid). Each call may give a new trader. Without it
   * those requirements are SKIPped.
   */
  anotherTrader?: ((context: AdapterContext) => Promise<TraderCredentials>) | null;
}

/** An API token of a trader: what the suite signs that trader's calls with. */
export interface TraderCredentials {
  tokenId: string;
  tokenSecret: string;
}

const missing = [404, 405, 501];

function setupFailed(what: string, call: RecordedCall): SetupError {
  return new SetupError(
    `${what}: ${call.method} ${new URL(call.url).pathname} answered ${call.status} ${call.responseText.slice(0, 200)}`,
    call,
  );
}

function scaled(
  value: Decimal.Value,
  factor: number,
  tick: string,
  rounding: Decimal.Rounding,
): string {
  const step = new Decimal(tick);
  const raw = new Decimal(value).mul(factor);
  const ticks = raw.div(step).toDecimalPlaces(0, rounding);
  return Decimal.max(ticks, 1).mul(step).toFixed();
}

type Row = Record<string, unknown>;

async function discoverMarket(context: AdapterContext): Promise<Market> {
  const products = await context.call('listProducts');
  if (products.status !== 200 || !Array.isArray(products.json))
    throw setupFailed('listing the products', products);
  const currencies = await context.call('listCurrencies');
  const minimum = new Map<string, string>();
  if (currencies.status === 200 && Array.isArray(currencies.json)) {
    for (const currency of currencies.json as Row[]) {
      minimum.set(String(currency.currency), String(currency.minimum_order_quantity));
    }
  }
  const tradable = (products.json as Row[]).filter(
    (product) =>
      product.disabled !== true &&
      product.perpetual_enabled !== true &&
      product.market_bid !== null &&
      product.market_ask !== null,
  );
  const info = (product: Row): ProductInfo => {
    const tick = String(product.tick_size ?? '1');
    const base = String(product.base_currency);
    return {
      id: String(product.id),
      baseCurrency: base,
      marginEnabled: product.margin_enabled === true,
      quantity: minimum.get(base) ?? '0.01',
      restingBuyPrice: scaled(String(product.market_bid), 0.5, tick, Decimal.ROUND_DOWN),
      restingSellPrice: scaled(String(product.market_ask), 2, tick, Decimal.ROUND_UP),
      crossingBuyPrice: scaled(String(product.market_ask), 1.01, tick, Decimal.ROUND_UP),
      crossingSellPrice: scaled(String(product.market_bid), 0.99, tick, Decimal.ROUND_DOWN),
    };
  };
  const primary = tradable.find((product) => product.margin_enabled === true) ?? tradable[0];
  if (!primary)
    throw new Skip('GET /products lists no enabled product with a market to place orders in');
  const secondary = tradable.find((product) => product !== primary);
  return { primary: info(primary), secondary: secondary && info(secondary) };
}

function orderBody(fixture: OrderFixture, price: string): Row {
  return {
    order_type: 'limit',
    product_id: fixture.product.id,
    side: fixture.side,
    quantity: fixture.quantity ?? fixture.product.quantity,
    price,
    client_order_id: fixture.clientOrderId,
    trading_type: fixture.tradingType,
    ...(fixture.tradingType === 'margin' ? { leverage_level: 2 } : {}),
    ...(fixture.fundingCurrency === undefined ? {} : { funding_currency: fixture.fundingCurrency }),
  };
}

/** The reference the suite keeps to an order a call answered with, placed as `fixture` says. */
export function refOf(
  order: Row,
  fixture: Pick<OrderFixture, 'product' | 'side' | 'tradingType'>,
): OrderRef {
  return {
    id: order.id as string | number,
    clientOrderId: (order.client_order_id as string | null) ?? null,
    productId: fixture.product.id,
    side: fixture.side,
    tradingType: fixture.tradingType,
  };
}

async function place(context: AdapterContext, fixture: OrderFixture, price: string): Promise<Row> {
  const placed = await context.call('createOrder', { body: orderBody(fixture, price) });
  if (missing.includes(placed.status)) {
    throw new Skip(
      `the server has no POST /orders (answered ${placed.status}); give an adapter (--adapter) whose placeLiveOrder makes live orders`,
    );
  }
  if (placed.status !== 200) throw setupFailed(`placing order ${fixture.clientOrderId}`, placed);
  return bodyOf(placed);
}

async function placeLiveOrder(context: AdapterContext, fixture: OrderFixture): Promise<OrderRef> {
  const price =
    fixture.side === 'buy' ? fixture.product.restingBuyPrice : fixture.product.restingSellPrice;
  const order = await place(context, fixture, price);
  if (order.status !== 'live') {
    throw new SetupError(
      `order ${fixture.clientOrderId} placed away from the market is ${String(order.status)}, not live`,
    );
  }
  return refOf(order, fixture);
}

async function placeFilledOrder(context: AdapterContext, fixture: OrderFixture): Promise<OrderRef> {
  const { side, product } = fixture;
  const price = side === 'buy' ? product.crossingBuyPrice : product.crossingSellPrice;
  if (price === undefined) throw new Skip('the market gives no price a sell fills at');
  const order = await place(context, fixture, price);
  if (order.status !== 'filled') {
    await context.call('cancelOrder', { path: { order_id: String(order.id) } });
    const across = side === 'buy' ? 'a buy above the best ask' : 'a sell below the best bid';
    throw new Skip(
      `${across} did not fill at once (status ${String(order.status)}); give an adapter whose placeFilledOrder makes a filled order`,
    );
  }
  return refOf(order, fixture);
}

async function liveOrderIds(context: AdapterContext, productId: string): Promise<Map<string, Row>> {
  const listed = await context.call('listOrders', {
    query: { product_id: productId, status: 'live', limit: '1000' },
  });
  if (listed.status !== 200) throw setupFailed('listing live orders', listed);
  const models = (bodyOf(listed).models as Row[] | undefined) ?? [];
  return new Map(models.map((order) => [String(order.id), order]));
}

/** Opens a position with take profit and stop loss: a resting margin buy given both, then moved across the market. */
async function placeConditionalOrders(
  context: AdapterContext,
  fixture: OrderFixture,
): Promise<OrderRef[]> {
  if (!fixture.product.marginEnabled) {
    throw new Skip(
      'no margin-enabled product to open a position with take profit and stop loss on',
    );
  }
  const buy = { ...fixture, side: 'buy' as const, tradingType: 'margin' as const };
  const order = await place(context, buy, fixture.product.restingBuyPrice);
  const id = String(order.id);
  const tpsl = await context.call('updateOrderTpsl', {
    path: { order_id: id },
    body: {
      take_profit: fixture.product.restingSellPrice,
      stop_loss: scaled(fixture.product.restingBuyPrice, 0.5, '1', Decimal.ROUND_DOWN),
    },
  });
  if (tpsl.status !== 200) throw setupFailed('setting take profit and stop loss', tpsl);
  const before = await liveOrderIds(context, fixture.product.id);
  const edited = await context.call('editOrder', {
    path: { order_id: id },
    body: { price: fixture.product.crossingBuyPrice },
  });
  if (edited.status !== 200) throw setupFailed('moving the order across the market', edited);
  if (bodyOf(edited).status !== 'filled') {
    throw new Skip(
      'an order moved across the market did not fill, so no position (and no conditional order) opened',
    );
  }
  const after = await liveOrderIds(context, fixture.product.id);
  const conditional = [...after].filter(([orderId]) => !before.has(orderId) && orderId !== id);
  if (conditional.length === 0) {
    throw new Skip('filling an order with take profit and stop loss opened no conditional order');
  }
  return conditional.map(([, row]) => ({
    id: row.id as string | number,
    clientOrderId: (row.client_order_id as string | null) ?? null,
    productId: fixture.product.id,
    side: row.side as 'buy' | 'sell',
    tradingType: 'margin',
  }));
}

async function approveOAuthRequest(
  context: AdapterContext,
  request: OAuthRequestView,
): Promise<void> {
  // The href names the server's own host; the suite calls only the URL it was given.
  const privateId = new URL(request.apiChallengeHref).pathname.match(
    /\/oauth\/([^/]+)\/approve$/,
  )?.[1];
  if (!privateId)
    throw new SetupError(
      `api_challenge_href ${request.apiChallengeHref} is not of the form /oauth/<id>/approve`,
    );
  const approved = await context.call('approveOAuthRequest', {
    path: { oauth_request_private_id: decodeURIComponent(privateId) },
  });
  if (missing.includes(approved.status)) {
    throw new Skip(
      `the approve href answered ${approved.status}; give an adapter whose approveOAuthRequest approves for the user`,
    );
  }
  if (approved.status !== 200) throw setupFailed('approving the OAuth request', approved);
}

/** The steps whose default always SKIPs: the interfaces have no call that does what they do. */
const skippingSteps = new Set<unknown>();

/** A default step that SKIPs whatever needs it, saying `why`. */
function withoutDefault(why: string): () => Promise<never> {
  const step = async (): Promise<never> => {
    throw new Skip(why);
  };
  skippingSteps.add(step);
  return step;
}

const denyOAuthRequest = withoutDefault(
  'the interfaces have no call that denies an OAuth request (a person denies at app_challenge_href): give the adapter a denyOAuthRequest step (the sandbox has one in its test control)',
);

const endTransaction = withoutDefault(
  'the interfaces have no call that ends a transaction: give the adapter an endTransaction step (the sandbox has one in its test control)',
);

const moveWithdrawal = withoutDefault(
  'the interfaces have no call that processes or declines a withdrawal: give the adapter a moveWithdrawal step (the sandbox has one in its test control)',
);

const creditDeposit = withoutDefault(
  'the interfaces have no call that credits a received deposit: give the adapter a creditDeposit step (the sandbox has one in its test control)',
);

const moveMarkPrice = withoutDefault(
  'the interfaces have no call that moves a mark price: give the adapter a moveMarkPrice step (the sandbox has one in its test control)',
);

const advanceClock = withoutDefault(
  'the interfaces have no call that moves the clock: give the adapter an advanceClock step (the sandbox has one in its test control)',
);

const borrowFromLoanBid = withoutDefault(
  "one user's credentials cannot make another user borrow from a loan bid: give the adapter a borrowFromLoanBid step (the sandbox has one in its test control)",
);

const repayLoan = withoutDefault(
  "one user's credentials cannot make another user repay a loan: give the adapter a repayLoan step (the sandbox has one in its test control)",
);

const anotherTrader = withoutDefault(
  "one user's credentials cannot act as another user: give the adapter an anotherTrader step (the sandbox has one in its test control)",
);

export const defaultAdapter: Required<{
  [K in keyof ConformanceAdapter]: NonNullable<ConformanceAdapter[K]>;
}> = {
  discoverMarket,
  placeLiveOrder,
  placeFilledOrder,
  placeConditionalOrders,
  approveOAuthRequest,
  denyOAuthRequest,
  endTransaction,
  moveWithdrawal,
  creditDeposit,
  moveMarkPrice,
  advanceClock,
  borrowFromLoanBid,
  repayLoan,
  anotherTrader,
};

/** An adapter step, by its name in `ConformanceAdapter`. */
export type AdapterStep = keyof ConformanceAdapter;

/** Whether the default adapter lacks `step`: without an adapter that gives it, it SKIPs. */
export const defaultLacks = (step: AdapterStep): boolean => skippingSteps.has(defaultAdapter[step]);

export type ResolvedAdapter = {
  [K in keyof ConformanceAdapter]-?: NonNullable<ConformanceAdapter[K]>;
};

/** The default steps with those of `adapter` in their place; a `null` step SKIPs what needs it. */
export function resolveAdapter(adapter: ConformanceAdapter = {}): ResolvedAdapter {
  const resolved = { ...defaultAdapter } as Record<string, unknown>;
  for (const [name, step] of Object.entries(adapter)) {
    resolved[name] =
      step === null
        ? async () => {
            throw new Skip(
              `the adapter says the server cannot ${name.replace(/([A-Z])/g, ' $1').toLowerCase()}`,
            );
          }
        : step;
  }
  return resolved as ResolvedAdapter;
}
