/**
 * A whole buy flow with the hooks: open a session, create a transaction, choose how to fund
 * and how to be paid, give the wallet address, and watch the price countdown. The page holds
 * only the public API key; nothing here can sign.
 */
// #region provider
import {
  errorMessage,
  QuickExchangeProvider,
  type SettlementDirection,
  useSettlementCountdown,
  useTransaction,
  useUserSession,
} from '@exchange-kit/react-hooks';
import { QueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { SettlementRequirements } from './settlement-requirements.js';
import { TermsAcceptance } from './terms-acceptance.js';

const queryClient = new QueryClient();

export function BuyApp({
  partnersUrl,
  publicApiKey,
}: {
  partnersUrl: string;
  publicApiKey: string;
}) {
  return (
    <QuickExchangeProvider config={{ partnersUrl, publicApiKey }} queryClient={queryClient}>
      <BuyFlow />
    </QuickExchangeProvider>
  );
}
// #endregion provider

// #region session
function BuyFlow() {
  // TanStack's query result; the session holds no secret (the provider keeps it in memory and
  // signs the session's calls with it).
  const { data: session, error, refetch, isFetching } = useUserSession();
  if (!session) {
    // Opening is tried again by itself a few times, and when the tab regains focus.
    const message = errorMessage(error);
    if (!message) return <p role="status">Opening a session…</p>;
    return (
      <p role="alert">
        {message}{' '}
        <button type="button" disabled={isFetching} onClick={() => void refetch()}>
          Try again
        </button>
      </p>
    );
  }
  return (
    <>
      <p data-testid="session">
        {session.environment} session, suggested country {session.suggestedCountry}.
      </p>
      <Checkout sessionId={session.sessionId} termsHref={session.termsOfServiceHref} />
    </>
  );
}
// #endregion session

// #region transaction
function Checkout({ sessionId, termsHref }: { sessionId: string; termsHref: string }) {
  const [accepted, setAccepted] = useState(false);
  const tx = useTransaction({ sessionId });
  const countdown = useSettlementCountdown(tx.funding);

  if (!tx.transaction) {
    return (
      <div data-testid="order">
        <TermsAcceptance accepted={accepted} onChange={setAccepted} termsHref={termsHref} />
        <button
          type="button"
          disabled={!accepted || tx.isWorking}
          onClick={() =>
            tx.create.mutate({
              side: 'buy',
              symbol: 'BTC/USDC',
              currency: 'BTC',
              quantity: '0.01',
              terms_of_service: { accepted, terms_href: termsHref },
            })
          }
        >
          Buy 0.01 BTC with USDC
        </button>
        {tx.errorMessage && <p role="alert">{tx.errorMessage}</p>}
      </div>
    );
  }
  // #endregion transaction

  // #region settlement
  const methodFor: Record<SettlementDirection, string> = {
    FUNDING: 'Pay by USDC transfer',
    PAYOUT: 'Receive to my BTC wallet',
  };
  return (
    <div data-testid="transaction">
      <p>
        Status: <strong className="status">{tx.transactionStatus}</strong>
      </p>
      {tx.methodsRequired.map((direction) => (
        <button
          key={direction}
          type="button"
          disabled={tx.isWorking}
          onClick={() => tx.chooseMethod.mutate({ direction, method: 'BLOCKCHAIN_TRANSFER' })}
        >
          {methodFor[direction]}
        </button>
      ))}
      {tx.canRequote ? (
        // The price expired before the user was done: the server would refuse what they send.
        <p role="alert" data-testid="expired">
          The price expired.{' '}
          <button type="button" disabled={tx.isWorking} onClick={() => tx.requote.mutate()}>
            Get a new price
          </button>
        </p>
      ) : (
        <SettlementRequirements
          requirements={tx.requirements}
          disabled={tx.isWorking}
          onSubmit={(requirement, value) => tx.submit.mutate({ requirement, value })}
        />
      )}
      {tx.funding?.setup_parameters.account_key && tx.transactionStatus === 'PENDING' && (
        // Once PENDING the instruction stands: no new price is offered, even past the countdown.
        <p data-testid="funding">
          Send {tx.funding.quantity} {tx.funding.currency} to{' '}
          <code>{tx.funding.setup_parameters.account_key.value}</code>
          {countdown.expired ? (
            '.'
          ) : (
            <>
              {' '}
              within <span data-testid="countdown">{countdown.secondsLeft} s</span>.
            </>
          )}
        </p>
      )}
      {tx.errorMessage && <p role="alert">{tx.errorMessage}</p>}
    </div>
  );
}
// #endregion settlement
