import { Decimal } from 'decimal.js';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type CallError,
  createExchangeClient,
  type ExchangeClient,
  isValidationErrorOf,
  type Order,
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
    // A method added without them would add its own last parameter to the union.
    expectTypeOf<
      LastParameters<Omit<ExchangeClient, 'raw' | 'forUser'>>
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
          readonly ('longer_than_36_bytes' | 'invalid_character' | 'already_used')[] | undefined
        >();
        if (error.fields.price?.includes('would_take_liquidity')) {
          expectTypeOf(error.fields.price).toEqualTypeOf<
            readonly (
              | 'must_be_positive'
              | 'required'
              | 'too_long'
              | 'would_take_liquidity'
              | 'would_trigger_immediately'
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
