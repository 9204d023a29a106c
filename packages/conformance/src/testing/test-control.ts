import type { ConformanceAdapter } from '../engine/adapter.js';
import type { Target } from '../engine/target.js';

/**
 * Adapter steps through the sandbox's documented test control, for what the interfaces leave
 * to the exchange itself: ending a transaction in FILLED or CANCELLED, denying an OAuth request
 * as its user would, processing or declining a withdrawal.
 */
export function testControlAdapter(target: Target): ConformanceAdapter {
  return {
    async denyOAuthRequest(_context, request) {
      const url = `${target.exchangeUrl.replace(/\/+$/, '')}/test/oauth_requests/${encodeURIComponent(request.publicId)}/deny`;
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      if (!response.ok)
        throw new Error(`test control ${url} answered ${response.status} ${await response.text()}`);
    },
    async endTransaction(_context, transactionId, status) {
      const url = `${target.partnerUrl.replace(/\/+$/, '')}/test/transactions/${encodeURIComponent(transactionId)}/status`;
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ status }),
      });
      if (!response.ok)
        throw new Error(`test control ${url} answered ${response.status} ${await response.text()}`);
    },
    async moveWithdrawal(_context, withdrawalId, state) {
      const url = `${target.exchangeUrl.replace(/\/+$/, '')}/test/withdrawals/${withdrawalId}/state`;
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ state }),
      });
      if (!response.ok)
        throw new Error(`test control ${url} answered ${response.status} ${await response.text()}`);
    },
  };
}
