import { describe, expectTypeOf, it } from 'vitest';
import {
  createPartnerClient,
  type PartnerClient,
  type PerCallOptions,
  type SessionClient,
} from './index.js';

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

const partner = createPartnerClient({ partnersUrl: 'http://127.0.0.1:4000', publicApiKey: 'pk' });

describe('per-call options', () => {
  it('are the last parameter of every method', () => {
    // A method added without them would add its own last parameter to the union.
    expectTypeOf<
      LastParameters<Omit<PartnerClient, 'raw' | 'publicApiKey' | 'forSession'>>
    >().toEqualTypeOf<PerCallOptions>();
    expectTypeOf<
      LastParameters<Omit<SessionClient, 'sessionId'>>
    >().toEqualTypeOf<PerCallOptions>();
  });

  it('take a signal, a timeout and a retry override', () => {
    const signal = new AbortController().signal;
    expectTypeOf(partner.sessions.create).toBeCallableWith(undefined, { signal });
    expectTypeOf(partner.transactions.status).toBeCallableWith('tx', {
      timeoutMs: 1_000,
      retry: false,
    });
    // @ts-expect-error an option no call takes
    void partner.transactions.status('tx', { cancel: signal });
  });
});

describe('session client', () => {
  it('is made from the created session or from its id and secret, and makes only session calls', () => {
    expectTypeOf(partner.forSession).toBeCallableWith({ sessionId: 's', sessionSecret: 'x' });
    expectTypeOf(partner.forSession).returns.toEqualTypeOf<SessionClient>();
    expectTypeOf<keyof SessionClient['transactions']>().toEqualTypeOf<
      'create' | 'status' | 'setMethod' | 'setParameters'
    >();
    // @ts-expect-error a session cannot list the partner's transactions
    void partner.forSession({ sessionId: 's', sessionSecret: 'x' }).transactions.list;
  });
});
