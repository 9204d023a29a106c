import { Decimal } from 'decimal.js';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type CallError,
  createExchangeClient,
  type ExchangeClient,
  isValidationErrorOf,
  type OAuthRequestDeniedError,
  OAuthRequestRefusedError,
  type OAuthRequestState,
  type Order,
  type OrderCreateInput,
  type OrderCreateInputOf,
  OrderNotLiveError,
  type OrderRef,
  type PerCallOptions,
  RateLimitedError,
  ValidationError,
} from './index.js';

const client = createExchangeClient({
  baseUrl: 'http://127.0.0.1:4000',
  tokenId: 't',
  tokenSecret: 's',
});

describe('method signatures', () => {
  it('takes decimals as numbers, strings or Decimals, and returns decimals as strings', () => {
    expectTypeOf(client.orders.create)
      .parameter(0)
      .toHaveProperty('quantity')
      .toEqualTypeOf<string | number | { isFinite(): boolean; toFixed(): string }>();
    expectTypeOf(client.orders.edit).toBeCallableWith({ id: 1 }, { price: new Decimal('1.5') });
    expectTypeOf(client.orders.edit).toBeCallableWith({ clientOrderId: 'a' }, { quantity: 0.1 });
    expectTypeOf<Order['quantity']>().toEqualTypeOf<string>();
    expectTypeOf<Order['take_profit']>().toEqualTypeOf<string | null>();
    expectTypeOf(client.orders.cancel).returns.resolves.toEqualTypeOf<Order>();
  });

  it('addresses an order by exactly one of its ids', () => {
    expectTypeOf<{ id: 1 }>().toMatchTypeOf<OrderRef>();
    expectTypeOf<{ clientOrderId: 'a' }>().toMatchTypeOf<OrderRef>();
    // @ts-expect-error both ids at once is ambiguous
    const both: OrderRef = { id: 1, clientOrderId: 'a' };
    void both;
  });

  it('accepts only the enum values of the spec', () => {
    // @ts-expect-error "hold" is not a side
    void client.orders.cancelAll({ side: 'hold' });
    expectTypeOf(client.orders.cancelAll).toBeCallableWith({
      side: 'sell',
      trading_type: 'margin',
    });
  });
});

type DecimalInput = string | number | { isFinite(): boolean; toFixed(): string };

describe('orders, one shape per order type', () => {
  it('takes every type with the fields it needs', () => {
    const base = { product_id: 1, side: 'buy', quantity: '0.01' } as const;
    expectTypeOf(client.orders.create).toBeCallableWith({
      ...base,
      order_type: 'limit',
      price: '5000',
    });
    expectTypeOf(client.orders.create).toBeCallableWith({
      ...base,
      order_type: 'limit_post_only',
      price: 5000,
    });
    expectTypeOf(client.orders.create).toBeCallableWith({ ...base, order_type: 'market' });
    expectTypeOf(client.orders.create).toBeCallableWith({
      ...base,
      order_type: 'market_with_range',
      price_range: '100',
    });
    expectTypeOf(client.orders.create).toBeCallableWith({
      ...base,
      order_type: 'stop',
      price: new Decimal('4900'),
    });
    expectTypeOf(client.orders.create).toBeCallableWith({
      ...base,
      product_id: '1',
      order_type: 'trailing_stop',
      trailing_stop_type: 'percentage',
      trailing_stop_value: 2,
    });
  });

  it('does not compile an order missing what its type needs', () => {
    const base = { product_id: 1, side: 'buy', quantity: '0.01' } as const;
    // @ts-expect-error a limit order without a price
    void client.orders.create({ ...base, order_type: 'limit' });
    // @ts-expect-error a post-only order without a price
    void client.orders.create({ ...base, order_type: 'limit_post_only' });
    // @ts-expect-error a stop without its stop price
    void client.orders.create({ ...base, order_type: 'stop' });
    // @ts-expect-error a ranged market order without its range
    void client.orders.create({ ...base, order_type: 'market_with_range' });
    // @ts-expect-error a trailing stop without its value
    void client.orders.create({ ...base, order_type: 'trailing_stop', trailing_stop_type: 'fiat' });
    void client.orders.create({
      ...base,
      order_type: 'trailing_stop',
      // @ts-expect-error 'percent' is not a trailing_stop_type: it is 'percentage'
      trailing_stop_type: 'percent',
      trailing_stop_value: '2',
    });
    // @ts-expect-error no such order type
    void client.orders.create({ ...base, order_type: 'limitt', price: '5000' });
    // @ts-expect-error "hold" is not a side
    void client.orders.create({ ...base, side: 'hold', order_type: 'market' });
  });

  it('narrows an order by its type', () => {
    const priceOf = (order: OrderCreateInput) => {
      if (order.order_type === 'limit') expectTypeOf(order.price).toEqualTypeOf<DecimalInput>();
      if (order.order_type === 'trailing_stop') {
        expectTypeOf(order.trailing_stop_type).toEqualTypeOf<'fiat' | 'percentage'>();
      }
    };
    void priceOf;
    expectTypeOf<OrderCreateInputOf<'stop'>['price']>().toEqualTypeOf<DecimalInput>();
    expectTypeOf<OrderCreateInputOf<'market'>['order_type']>().toEqualTypeOf<'market'>();
  });
});

describe('ids', () => {
  it('are numbers or strings in every method that takes one', () => {
    for (const id of [1, '1'] as const) {
      expectTypeOf(client.orders.get).toBeCallableWith({ id });
      expectTypeOf(client.orders.edit).toBeCallableWith({ id }, { price: '1' });
      expectTypeOf(client.orders.updateTpsl).toBeCallableWith({ id }, { stop_loss: '1' });
      expectTypeOf(client.orders.cancel).toBeCallableWith({ id });
      expectTypeOf(client.orders.cancelAll).toBeCallableWith({ product_id: id });
      expectTypeOf(client.orders.list).toBeCallableWith({ product_id: id });
      expectTypeOf(client.products.get).toBeCallableWith(id);
      expectTypeOf(client.products.priceLevels).toBeCallableWith(id);
    }
  });
});

describe('error narrowing', () => {
  it('narrows a call error by status', () => {
    const narrow = (error: CallError) => {
      if (error.status === 401)
        expectTypeOf(error).toEqualTypeOf<import('./index.js').AuthenticationError>();
      if (error.status === 429) expectTypeOf(error.retryAfter).toEqualTypeOf<number | undefined>();
      if (error instanceof ValidationError) expectTypeOf(error.status).toEqualTypeOf<400 | 422>();
      if (error instanceof OrderNotLiveError) expectTypeOf(error.status).toEqualTypeOf<404>();
      if (error instanceof RateLimitedError) expectTypeOf(error.status).toEqualTypeOf<429>();
    };
    expectTypeOf(narrow).parameter(0).toEqualTypeOf<CallError>();
  });
});

/** The type of a function's last parameter, `never` for a function without any. */
type LastParameter<F> = F extends (...args: infer Args) => unknown
  ? Required<Args> extends [...unknown[], infer Last]
    ? Last
    : never
  : never;
/** The last parameter of every method, at any depth, as one union. */
type LastParameters<T> = {
  [K in keyof T]: T[K] extends (...args: never[]) => unknown
    ? LastParameter<T[K]>
    : LastParameters<T[K]>;
}[keyof T];

describe('per-call options', () => {
  it('are the last parameter of every method, the user view’s too', () => {
    // A method added without them would add its own last parameter to the union. The events
    // are subscriptions on one connection, not calls.
    expectTypeOf<
      LastParameters<Omit<ExchangeClient, 'raw' | 'forUser' | 'events'>>
    >().toEqualTypeOf<PerCallOptions>();
    expectTypeOf<
      LastParameters<Omit<ReturnType<ExchangeClient['forUser']>, 'raw'>>
    >().toEqualTypeOf<PerCallOptions>();
  });

  it('take a signal, a timeout and a retry override, and nothing else', () => {
    const signal = new AbortController().signal;
    expectTypeOf(client.orders.get).toBeCallableWith({ id: 1 }, { signal, timeoutMs: 500 });
    expectTypeOf(client.orders.cancelAll).toBeCallableWith(undefined, { retry: false });
    expectTypeOf(client.currencies.list).toBeCallableWith({ retry: { retries: 5 } });
    // @ts-expect-error stripe-node's name; here it is timeoutMs
    void client.orders.get({ id: 1 }, { timeout: 500 });
    // @ts-expect-error retry takes options or false
    void client.products.get(1, { retry: 3 });
  });
});

describe('the 422 of one operation', () => {
  it('narrows fields and codes to the ones the operations table documents for it', () => {
    const check = (error: unknown) => {
      if (isValidationErrorOf(error, 'createOrder')) {
        expectTypeOf(error).toMatchTypeOf<ValidationError>();
        expectTypeOf(error.status).toEqualTypeOf<422>();
        expectTypeOf(error.fields.client_order_id).toEqualTypeOf<
          | readonly (
              | 'longer_than_36_bytes'
              | 'must_not_contain_nul'
              | 'must_not_contain_lone_surrogate'
              | 'already_used'
            )[]
          | undefined
        >();
        if (error.fields.price?.includes('would_take_liquidity')) {
          expectTypeOf(error.fields.price).toEqualTypeOf<
            readonly (
              | 'must_be_positive'
              | 'required'
              | 'too_long'
              | 'would_take_liquidity'
              | 'would_trigger_immediately'
              | 'not_a_multiple_of_the_tick_size'
            )[]
          >();
        }
        // @ts-expect-error not a code of client_order_id
        void error.fields.client_order_id?.includes('must_be_positive');
        // @ts-expect-error createOrder's 422 documents no such field
        void error.fields.order;
      }
      if (isValidationErrorOf(error, 'editOrder')) {
        expectTypeOf(error.fields.order).toEqualTypeOf<
          readonly 'Can not update partially filled order'[] | undefined
        >();
      }
    };
    // @ts-expect-error an operation the table does not have
    void isValidationErrorOf(new Error(), 'createOrders');
    void check;
  });

  it('leaves a ValidationError of no named operation as broad as the answer', () => {
    expectTypeOf<ValidationError['fields']>().toEqualTypeOf<
      Readonly<Record<string, readonly string[]>>
    >();
  });
});

describe('a refused OAuth request', () => {
  it('narrows by class to the reason the spec names, and the state read to its statuses', () => {
    const check = (error: unknown) => {
      if (error instanceof OAuthRequestRefusedError) {
        expectTypeOf(error.reason).toEqualTypeOf<'pending' | 'denied' | 'expired'>();
        expectTypeOf(error.status).toEqualTypeOf<401>();
      }
    };
    void check;
    expectTypeOf<OAuthRequestDeniedError['reason']>().toEqualTypeOf<'denied'>();
    expectTypeOf(client.oauth.getRequest).returns.resolves.toEqualTypeOf<OAuthRequestState>();
    expectTypeOf<OAuthRequestState['status']>().toEqualTypeOf<
      'pending' | 'approved' | 'denied' | 'expired'
    >();
  });
});
