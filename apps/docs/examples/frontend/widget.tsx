// #region widget
import { useIntent, useUserSession, useWidgetInitialization } from '@exchange-kit/react-hooks';

/** Starts the widget on the quote screen of an intent your backend created. */
export function WidgetFor({ intentId }: { intentId: string }) {
  const widget = useWidgetInitialization({
    configVersion: '1',
    intentId, // payout currency and quantity are locked to the intent's
    defaultTransaction: { funding_settlement: { currency: 'BTC' } }, // the user may change it
  });
  const { data: session } = useUserSession({ widget });
  const { data: intent } = useIntent(intentId, { load: loadIntentFromMyBackend });
  if (!session || !intent) return null;
  return <pre>{JSON.stringify(widget, null, 2)}</pre>;
}

// #endregion widget

// #region backend-call
import type { Intent } from '@exchange-kit/react-hooks';

/**
 * The page asks your backend, which created the intent with its token secret and kept it. The
 * signal is the query's: a cancelled query stops the request.
 */
async function loadIntentFromMyBackend(
  intentId: string,
  { signal }: { signal: AbortSignal },
): Promise<Intent> {
  const response = await fetch(`/backend/intents/${encodeURIComponent(intentId)}`, { signal });
  if (!response.ok) throw new Error(`intent ${intentId}: ${response.status}`);
  return (await response.json()) as Intent;
}
// #endregion backend-call
