// Runs the built hooks on React 18 in jsdom: a session, then a transaction that needs a
// settlement method, and a method chosen for each side. Prints what it saw as JSON.
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>', { url: 'http://127.0.0.1/' });
for (const name of ['window', 'document', 'navigator', 'HTMLElement', 'Node', 'MutationObserver']) {
  Object.defineProperty(globalThis, name, {
    value: dom.window[name],
    configurable: true,
    writable: true,
  });
}
globalThis.IS_REACT_ACT_ENVIRONMENT = true;

const React = await import('react');
const { renderHook, waitFor } = await import('@testing-library/react');
const { QueryClient } = await import('@tanstack/react-query');
const { QuickExchangeProvider, useTransaction, useUserSession } = await import(
  '@exchange-kit/react-hooks'
);

const config = { partnersUrl: process.env.PARTNERS_URL, publicApiKey: process.env.PUBLIC_API_KEY };
const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
const wrapper = ({ children }) =>
  React.createElement(QuickExchangeProvider, { config, queryClient }, children);
const order = { side: 'buy', symbol: 'BTC/USDC', currency: 'BTC', quantity: '0.01' };

const { result } = renderHook(
  () => {
    const { data: session } = useUserSession();
    const transaction = useTransaction({ sessionId: session?.sessionId, order });
    return { session, transaction };
  },
  { wrapper: (props) => React.createElement(React.StrictMode, null, wrapper(props)) },
);
const seen = (what) =>
  waitFor(
    () => {
      if (!what()) throw new Error('not yet');
    },
    { timeout: 15_000 },
  );
await seen(() => result.current.transaction.transactionStatus === 'SETTLEMENT_METHOD_REQUIRED');
const before = result.current.transaction;
await before.chooseMethod.mutateAsync({ direction: 'FUNDING', method: 'BLOCKCHAIN_TRANSFER' });
await result.current.transaction.chooseMethod.mutateAsync({
  direction: 'PAYOUT',
  method: 'SERVICE_PARTNER_WALLET',
});
await seen(
  () =>
    result.current.transaction.methodsRequired.length === 0 &&
    result.current.transaction.transactionStatus !== 'SETTLEMENT_METHOD_REQUIRED',
);
console.log(
  JSON.stringify({
    react: React.version,
    environment: result.current.session?.environment,
    first: before.transactionStatus,
    afterMethods: result.current.transaction.transactionStatus,
    transactionId: result.current.transaction.transactionId,
  }),
);
queryClient.clear();
process.exit(0);
