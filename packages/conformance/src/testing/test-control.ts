import type { ConformanceAdapter } from '../engine/adapter.js';
import type { Target } from '../engine/target.js';

/** Posts `body` to a test-control path of `base`, throwing with the answer when refused. */
async function control(base: string, path: string, body: unknown): Promise<void> {
  const url = `${base.replace(/\/+$/, '')}${path}`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`test control ${url} answered ${response.status} ${await response.text()}`);
}

/**
 * Adapter steps through the sandbox's documented test control, for what the interfaces leave
 * to the exchange itself: ending a transaction in FILLED or CANCELLED, denying an OAuth request
 * as its user would, processing or declining a withdrawal, moving a product's mark price,
 * moving the clock, and another trader borrowing from a loan bid and repaying it.
 */
export function testControlAdapter(target: Target): ConformanceAdapter {
  return {
    async denyOAuthRequest(_context, request) {
      const id = encodeURIComponent(request.publicId);
      await control(target.exchangeUrl, `/test/oauth_requests/${id}/deny`, {});
    },
    async endTransaction(_context, transactionId, status) {
      const id = encodeURIComponent(transactionId);
      await control(target.partnerUrl, `/test/transactions/${id}/status`, { status });
    },
    async moveWithdrawal(_context, withdrawalId, state) {
      await control(target.exchangeUrl, `/test/withdrawals/${withdrawalId}/state`, { state });
    },
    async moveMarkPrice(_context, productId, price) {
      const id = encodeURIComponent(productId);
      await control(target.exchangeUrl, `/test/products/${id}/mark_price`, { price });
    },
    async advanceClock(_context, seconds) {
      await control(target.exchangeUrl, '/test/clock', { advance_seconds: seconds });
    },
    async borrowFromLoanBid(_context, loanBidId, quantity) {
      const id = encodeURIComponent(loanBidId);
      await control(target.exchangeUrl, `/test/loan_bids/${id}/borrow`, { quantity });
    },
    async repayLoan(_context, loanId) {
      const id = encodeURIComponent(loanId);
      await control(target.exchangeUrl, `/test/loans/${id}/repay`, {});
    },
  };
}
