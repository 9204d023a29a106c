/**
 * The whole buy flow on a page: the user buys 0.01 BTC paid out to their wallet, funding it
 * with a USDC transfer. The partner's token secret stays on the backend (backend.ts), which
 * creates the intent; the page holds only the public API key.
 */
import {
  errorMessage,
  orderForIntent,
  QuickExchangeProvider,
  useCreateIntent,
  useSettlementCountdown,
  useTransaction,
  useUserSession,
} from '@exchange-kit/react-hooks';
import { QueryClient } from '@tanstack/react-query';
import { StrictMode, useState } from 'react';
import { backendCalls } from './backend-calls.js';
import { SettlementRequirements } from './settlement-requirements.js';
import { TermsAcceptance } from './terms-acceptance.js';

const backend = backendCalls();
const queryClient = new QueryClient();
const purchase = { currency: 'BTC', quantity: '0.01' };
const fundingCurrency = 'USDC';

export function App() {
  // The page is served with the partner interface proxied under /api, so it calls its own origin.
  const config = { partnersUrl: window.location.origin, publicApiKey: __PUBLIC_API_KEY__ };
  return (
    <StrictMode>
      <QuickExchangeProvider config={config} queryClient={queryClient}>
        <h1>Buy {purchase.currency}</h1>
        <BuyFlow />
      </QuickExchangeProvider>
    </StrictMode>
  );
}

function BuyFlow() {
  const { data: session, error: sessionError, refetch: openSession, isFetching } = useUserSession();
  const intentCreation = useCreateIntent(backend.createIntent);
  const intent = intentCreation.data;
  const [accepted, setAccepted] = useState(false);
  const transaction = useTransaction({ sessionId: session?.sessionId });
  const { funding, payout } = transaction;
  const countdown = useSettlementCountdown(funding);

  if (!session) {
    // Opening is tried again by itself for a while, and when the tab regains focus.
    const message = errorMessage(sessionError);
    if (!message) return <p role="status">Opening a session…</p>;
    return (
      <p role="alert">
        {message}{' '}
        <button type="button" disabled={isFetching} onClick={() => void openSession()}>
          Try again
        </button>
      </p>
    );
  }
  return (
    <>
      <section data-testid="session">
        <h2>1. Session</h2>
        {session.environment} session for {session.suggestedCountry}.
      </section>

      <section data-testid="intent">
        <h2>2. Order</h2>
        {intent ? (
          <p>
            Order {intent.partner_order_id}: {intent.payout_settlement?.quantity}{' '}
            {intent.payout_settlement?.currency}, paid for in {fundingCurrency}.
          </p>
        ) : (
          <button
            type="button"
            disabled={intentCreation.isPending}
            onClick={() => intentCreation.mutate(purchase)}
          >
            Buy {purchase.quantity} {purchase.currency}
          </button>
        )}
        {intentCreation.error && <p role="alert">{errorMessage(intentCreation.error)}</p>}
      </section>

      {intent && !transaction.transaction && (
        <section data-testid="terms">
          <h2>3. Terms</h2>
          <TermsAcceptance
            accepted={accepted}
            onChange={setAccepted}
            termsHref={session.termsOfServiceHref}
          />
          <div>
            <button
              type="button"
              disabled={!accepted || transaction.isWorking}
              onClick={() =>
                transaction.create.mutate({
                  ...orderForIntent(intent, fundingCurrency),
                  terms_of_service: { accepted, terms_href: session.termsOfServiceHref },
                })
              }
            >
              Continue
            </button>
          </div>
        </section>
      )}

      {transaction.transaction && (
        <section data-testid="transaction">
          <h2>4. Payment</h2>
          <p>
            Status: <span className="status">{transaction.transactionStatus}</span>
          </p>
          {transaction.methodsRequired.includes('FUNDING') && (
            <button
              type="button"
              disabled={transaction.isWorking}
              onClick={() =>
                transaction.chooseMethod.mutate({
                  direction: 'FUNDING',
                  method: 'BLOCKCHAIN_TRANSFER',
                })
              }
            >
              Pay by {fundingCurrency} transfer
            </button>
          )}
          {transaction.canRequote ? (
            // The price the instructions were made from no longer holds: nothing settles on
            // it, and the address typed so far would be refused.
            <p role="alert" data-testid="expired">
              The price expired.{' '}
              <button
                type="button"
                disabled={transaction.isWorking}
                onClick={() => transaction.requote.mutate()}
              >
                Get a new price
              </button>
            </p>
          ) : (
            <SettlementRequirements
              requirements={transaction.requirements}
              disabled={transaction.isWorking}
              onSubmit={(requirement, value) => transaction.submit.mutate({ requirement, value })}
            />
          )}
          {funding?.status === 'WAITING_USER' && !transaction.canRequote && (
            <div data-testid="funding">
              {countdown.expired ? (
                <p role="alert">The time to pay ran out.</p>
              ) : (
                <p>
                  Send {funding.quantity} {funding.currency} to{' '}
                  <code>{funding.setup_parameters.account_key?.value}</code> within{' '}
                  <span data-testid="countdown">{countdown.secondsLeft} s</span>.
                </p>
              )}
            </div>
          )}
          {payout && transaction.transactionStatus === 'PENDING' && (
            <p data-testid="payout">
              Then {payout.quantity} {payout.currency} go to{' '}
              <code>{payout.received_input.account_key?.value}</code>.
            </p>
          )}
          {transaction.errorMessage && <p role="alert">{transaction.errorMessage}</p>}
        </section>
      )}
    </>
  );
}
