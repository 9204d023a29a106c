// #region intent
import {
  type Intent,
  orderForIntent,
  useCreateIntent,
  useTransaction,
} from '@exchange-kit/react-hooks';

/** What the page asks your backend for; the backend decides the economics and signs. */
interface IntentRequest {
  currency: string;
  quantity: string;
}

async function createIntentOnMyBackend(input: IntentRequest): Promise<Intent> {
  const response = await fetch('/backend/intents', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  if (!response.ok) throw new Error(`intent: ${response.status}`);
  return (await response.json()) as Intent;
}

export function BuyWithIntent({ sessionId, termsHref }: { sessionId: string; termsHref: string }) {
  // TanStack's mutation: mutate, mutateAsync (which throws), data, isPending, error, reset
  const {
    data: intent,
    mutate: createIntent,
    isPending,
  } = useCreateIntent(createIntentOnMyBackend);
  const tx = useTransaction({ sessionId, clientRef: 'checkout-42' });
  if (!intent) {
    return (
      <button
        type="button"
        disabled={isPending}
        onClick={() => createIntent({ currency: 'USDC', quantity: '49.90' })}
      >
        Pay 49.90 USDC
      </button>
    );
  }
  return (
    <button
      type="button"
      disabled={tx.isWorking || tx.transaction !== undefined}
      onClick={() =>
        tx.create.mutate({
          // intent_id plus the intent's payout (USDC), funded in BTC unless the intent fixes it
          ...orderForIntent(intent, 'BTC'),
          terms_of_service: { accepted: true, terms_href: termsHref },
        })
      }
    >
      Continue to payment
    </button>
  );
}
// #endregion intent
