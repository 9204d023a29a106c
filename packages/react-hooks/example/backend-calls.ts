import type { Intent } from '@exchange-kit/partner-client';
import type { IntentRequest } from './backend.js';

/** The page's side of the backend: plain fetches, no secret. */
async function json(response: Response): Promise<Intent> {
  const body = (await response.json()) as Intent | { message?: string };
  if (!response.ok) throw new Error((body as { message?: string }).message ?? 'Backend error');
  return body as Intent;
}

export function backendCalls(backendUrl = '') {
  return {
    createIntent: async (input: IntentRequest) =>
      json(
        await fetch(`${backendUrl}/backend/intents`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(input),
        }),
      ),
    loadIntent: async (intentId: string, options: { signal?: AbortSignal } = {}) =>
      json(
        await fetch(`${backendUrl}/backend/intents/${encodeURIComponent(intentId)}`, {
          signal: options.signal ?? null,
        }),
      ),
  };
}
