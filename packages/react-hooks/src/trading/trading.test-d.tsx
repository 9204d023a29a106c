import {
  createExchangeClient,
  createPublicClient,
  type Execution,
} from '@exchange-kit/exchange-client';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type BookLevel,
  type RepairedGap,
  type TradingClient,
  useExecutions,
  useOrderBook,
} from './index.js';

declare const market: { productId: number; pair: string };
const client = createPublicClient({ baseUrl: 'https://api.exchange.example' });

describe('the trading hooks types', () => {
  it("give the book's sides as exact decimal strings, and the last gap", () => {
    const book = useOrderBook(market, { client });
    expectTypeOf(book.data?.buy).toEqualTypeOf<BookLevel[] | undefined>();
    expectTypeOf<BookLevel>().toEqualTypeOf<readonly [price: string, quantity: string]>();
    expectTypeOf(book.data?.gap).toEqualTypeOf<RepairedGap | undefined>();
    expectTypeOf(book.error).toEqualTypeOf<Error | null>();
  });

  it('give the fills as the exchange client types them', () => {
    const fills = useExecutions(market, { client, limit: 10 });
    expectTypeOf(fills.data?.executions).toEqualTypeOf<Execution[] | undefined>();
    expectTypeOf(fills.status).toEqualTypeOf<'pending' | 'error' | 'success'>();
  });

  it('take a public client or a signing one, and nothing without the reads', () => {
    expectTypeOf(client).toExtend<TradingClient>();
    const signing = createExchangeClient({ baseUrl: '', tokenId: '', tokenSecret: '' });
    expectTypeOf(signing).toExtend<TradingClient>();
    // @ts-expect-error a client needs the book read, not only the channels
    useOrderBook(market, { client: { events: client.events } });
    // @ts-expect-error the market names its pair for the channels
    useExecutions({ productId: 1 }, { client });
  });
});
