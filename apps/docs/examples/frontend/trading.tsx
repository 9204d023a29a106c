// #region trading
import { createPublicClient } from '@exchange-kit/exchange-client';
import { useExecutions, useOrderBook } from '@exchange-kit/react-hooks/trading';

// No token: the book and the fills are public, so nothing secret reaches the page.
const client = createPublicClient({ baseUrl: 'https://api.exchange.example' });
const market = { productId: 1, pair: 'BTCJPY' };

export function Market() {
  const book = useOrderBook(market, { client }); // TanStack's query result
  const fills = useExecutions(market, { client, limit: 20 }); // newest first
  if (!book.data || !fills.data) return <p>{book.error?.message ?? 'Loading…'}</p>;
  return (
    <>
      {book.data.gap && <p>Reconnected: read again over REST.</p>}
      <ol>
        {book.data.sell.slice(0, 5).map(([price, quantity]) => (
          <li key={price}>
            sell {quantity} at {price}
          </li>
        ))}
      </ol>
      <ol>
        {book.data.buy.slice(0, 5).map(([price, quantity]) => (
          <li key={price}>
            buy {quantity} at {price}
          </li>
        ))}
      </ol>
      <ul>
        {fills.data.executions.map((fill) => (
          <li key={fill.id}>
            {fill.taker_side} {fill.quantity} at {fill.price}
          </li>
        ))}
      </ul>
    </>
  );
}
// #endregion trading
