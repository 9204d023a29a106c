/**
 * The example application's backend: the only place that holds the partner's token secret.
 * It creates intents (which must be signed with that secret) and keeps them, so the page can
 * load one by id (the partner interface has no operation that reads an intent back).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createPartnerClient, type Intent } from '@exchange-kit/partner-client';
import { errorMessage } from '../src/errors.js';

export interface BackendOptions {
  partnersUrl: string;
  publicApiKey: string;
  tokenId: string;
  tokenSecret: string;
}

/** What the page asks for: the user buys `quantity` of `currency`, paid out to their wallet. */
export interface IntentRequest {
  currency: string;
  quantity: string;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) text += chunk;
  return text === '' ? {} : JSON.parse(text);
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** Handles /backend/intents; hands anything else to `next`. Usable as connect middleware. */
export function intentBackend(options: BackendOptions) {
  const partner = createPartnerClient(options);
  const intents = new Map<string, Intent>();
  let orders = 0;

  return async (request: IncomingMessage, response: ServerResponse, next: () => void) => {
    const path = (request.url ?? '').split('?')[0] ?? '';
    if (!path.startsWith('/backend/intents')) return next();
    try {
      if (request.method === 'POST' && path === '/backend/intents') {
        const { currency, quantity } = (await readJson(request)) as IntentRequest;
        orders += 1;
        // The backend decides the economics; the page only says what the user picked.
        const intent = await partner.intents.create({
          payout_settlement: { method: 'BLOCKCHAIN_TRANSFER', currency, quantity },
          partner_order_id: `example-${Date.now()}-${orders}`,
          partner_tags: ['example'],
        });
        intents.set(intent.id, intent);
        return reply(response, 200, intent);
      }
      const id = path.slice('/backend/intents/'.length);
      const intent = request.method === 'GET' ? intents.get(id) : undefined;
      if (intent) return reply(response, 200, intent);
      return reply(response, 404, { message: 'Intent not found' });
    } catch (error) {
      return reply(response, 502, { message: errorMessage(error) });
    }
  };
}
