/**
 * A trading page for the end-to-end test: a product's live book and fills, through the hooks and
 * a public client of the page's own origin (which the test's server forwards to the sandbox).
 */
import { createPublicClient } from '@exchange-kit/exchange-client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createRoot } from 'react-dom/client';
import { type Market, useExecutions, useOrderBook } from '../src/trading/index.js';

const client = createPublicClient({
  baseUrl: location.origin,
  events: { reconnectDelayMs: 100, maxReconnectDelayMs: 300 },
});
const params = new URLSearchParams(location.search);
const market: Market = { productId: params.get('product') ?? '', pair: params.get('pair') ?? '' };

function Book() {
  const book = useOrderBook(market, { client });
  const fills = useExecutions(market, { client, limit: 10 });
  if (book.status !== 'success' || fills.status !== 'success') {
    return <p id="status">{book.error?.message ?? fills.error?.message ?? 'loading'}</p>;
  }
  return (
    <>
      <p id="status">{book.data.gap ? 'repaired after a gap' : 'live'}</p>
      <table id="buy">
        <tbody>
          {book.data.buy.map(([price, quantity]) => (
            <tr key={price}>
              <td>{price}</td>
              <td>{quantity}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <table id="fills">
        <tbody>
          {fills.data.executions.map((fill) => (
            <tr key={fill.id} data-id={fill.id}>
              <td>{fill.taker_side}</td>
              <td>{fill.price}</td>
              <td>{fill.quantity}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

createRoot(document.getElementById('root') as HTMLElement).render(
  <QueryClientProvider client={new QueryClient()}>
    <Book />
  </QueryClientProvider>,
);
