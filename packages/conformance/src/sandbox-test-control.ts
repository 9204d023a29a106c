import type { ConformanceAdapter } from './engine/adapter.js';

/**
 * Posts `body` to a test-control path of `base` and reads its answer, throwing with the answer
 * when refused.
 */
async function control(base: string, path: string, body: unknown): Promise<unknown> {
  const url = `${base.replace(/\/+$/, '')}${path}`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`test control ${url} answered ${response.status} ${text}`);
  return JSON.parse(text) as unknown;
}

/**
 * Adapter steps through the reference sandbox's test control (`--test-control`), for what the
 * interfaces leave to the exchange itself: ending a transaction in FILLED or CANCELLED, denying
 * an OAuth request as its user would, processing or declining a withdrawal, crediting a
 * received deposit, moving a product's mark price, moving the clock, another trader
 * borrowing from a loan bid and repaying it, and a new trader with funds of its own.
 * Each step posts to the run's own base URLs. From the command line:
 * `--adapter @exchange-kit/conformance/sandbox-test-control`.
 */
export const sandboxTestControl: ConformanceAdapter = {
  async denyOAuthRequest({ target }, request) {
    const id = encodeURIComponent(request.publicId);
    await control(target.exchangeUrl, `/test/oauth_requests/${id}/deny`, {});
  },
  async endTransaction({ target }, transactionId, status) {
    const id = encodeURIComponent(transactionId);
    await control(target.partnerUrl, `/test/transactions/${id}/status`, { status });
  },
  async moveWithdrawal({ target }, withdrawalId, state) {
    await control(target.exchangeUrl, `/test/withdrawals/${withdrawalId}/state`, { state });
  },
  async creditDeposit({ target }, { userId, currency, amount }) {
    await control(target.exchangeUrl, '/test/deposits', {
      user_id: Number(userId),
      currency,
      amount,
    });
  },
  async moveMarkPrice({ target }, productId, price) {
    const id = encodeURIComponent(productId);
    await control(target.exchangeUrl, `/test/products/${id}/mark_price`, { price });
  },
  async advanceClock({ target }, seconds) {
    await control(target.exchangeUrl, '/test/clock', { advance_seconds: seconds });
  },
  async borrowFromLoanBid({ target }, loanBidId, quantity) {
    const id = encodeURIComponent(loanBidId);
    await control(target.exchangeUrl, `/test/loan_bids/${id}/borrow`, { quantity });
  },
  async repayLoan({ target }, loanId) {
    const id = encodeURIComponent(loanId);
    await control(target.exchangeUrl, `/test/loans/${id}/repay`, {});
  },
  async anotherTrader({ target }) {
    const made = (await control(target.exchangeUrl, '/test/users', {})) as {
      token_id: string;
      token_secret: string;
    };
    return { tokenId: made.token_id, tokenSecret: made.token_secret };
  },
};

export default sandboxTestControl;
