/**
 * What a refused request must leave as it was, read through the interfaces themselves: the
 * demo user's orders and balances, and the demo partner's transaction listing.
 */
import { operationTable as exchangeOperations } from '@exchange-kit/contract/exchange';
import { operationTable as partnerOperations } from '@exchange-kit/contract/partner';
import type { FuzzRequest } from './fuzz-requests.js';
import type { SandboxCaller } from './sandbox-caller.js';

export type ObservedState = Record<string, string>;

function read(
  operationId: string,
  api: FuzzRequest['api'],
  method: string,
  url: string,
  signing: FuzzRequest['signing'],
): FuzzRequest {
  return { api, operationId, method, url, signing, credential: 'signed' };
}

/** The reads that together show the state, each signed as its operation asks. */
export function stateReads(publicApiKey: string): FuzzRequest[] {
  const { listOrders, getAccounts } = exchangeOperations;
  const { listPartnerTransactions } = partnerOperations;
  return [
    read('listOrders', 'exchange', listOrders.method, `${listOrders.path}?limit=1000`, 'service'),
    read('getAccounts', 'exchange', getAccounts.method, getAccounts.path, 'service'),
    read(
      'listPartnerTransactions',
      'partner',
      listPartnerTransactions.method,
      listPartnerTransactions.path.replace('{public_api_key}', encodeURIComponent(publicApiKey)),
      'delegated',
    ),
  ];
}

/**
 * Reads the state, one read after another (in parallel their nonces could arrive out of
 * order). A read that fails means the sandbox no longer answers as it should.
 */
export async function observeState(
  caller: SandboxCaller,
  reads: FuzzRequest[],
): Promise<ObservedState> {
  const state: ObservedState = {};
  for (const request of reads) {
    const answer = await caller.send(request);
    if (answer.status !== 200) {
      throw new Error(
        `the sandbox no longer answers ${request.method} ${request.url}: ${answer.status} ${answer.text.slice(0, 200)}`,
      );
    }
    state[request.operationId] = answer.text;
  }
  return state;
}

/** The reads whose answers differ, by operation. */
export function changedReads(before: ObservedState, after: ObservedState): string[] {
  return Object.keys(before).filter((key) => before[key] !== after[key]);
}
