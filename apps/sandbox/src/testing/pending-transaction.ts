import {
  zCreateSessionResponse,
  zIntentToTradeResponse,
} from '@exchange-kit/contract/partner/schemas';
import * as z from 'zod/mini';

async function post(url: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer: unknown = await response.json();
  if (!response.ok)
    throw new Error(`POST ${url} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/**
 * A transaction made over HTTP with both methods and every parameter, so PENDING from the
 * start: a new session, then intent_to_trade. Its id.
 */
export async function pendingTransaction(
  partnerUrl: string,
  publicApiKey: string,
): Promise<string> {
  const session = z.parse(
    zCreateSessionResponse,
    await post(`${partnerUrl}/api/v1/session`, { public_api_key: publicApiKey }),
  ).payload;
  const trade = z.parse(
    zIntentToTradeResponse,
    await post(`${partnerUrl}/api/v1/transaction/intent_to_trade`, {
      session_id: session.session_id,
      side: 'buy',
      symbol: 'BTC/USDC',
      currency: 'BTC',
      quantity: '0.015',
      funding_settlement: {
        method: 'BLOCKCHAIN_DELEGATED_BROADCAST',
        input_parameters: {
          transaction_key: { type: 'SIGNED_RAW_TRANSACTION', value: '0x02f8b1' },
        },
      },
      payout_settlement: {
        method: 'BLOCKCHAIN_TRANSFER',
        input_parameters: {
          account_key: {
            type: 'WALLET_ADDRESS',
            value: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
          },
        },
      },
    }),
  ).payload;
  if (trade.status !== 'PENDING')
    throw new Error(`the transaction is ${trade.status}, not PENDING`);
  return trade.transaction_id;
}
