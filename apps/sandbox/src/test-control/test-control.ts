import type { IncomingMessage } from 'node:http';
import { statesWith } from '@exchange-kit/contract/state-tables';
import { chargeDueInterest } from '../exchange/borrowing.js';
import { denyRequest } from '../exchange/oauth.js';
import { canonicalUuid } from '../handling/ids.js';
import { notAllowed, type Serialized, uncachedJson } from '../http/reply-cache.js';
import type { Transaction } from '../state/partner-state.js';
import type { Sequencer } from '../state/sequencer.js';
import { refused } from './control-answers.js';
import { fundingControl } from './funding-control.js';
import { loanControl } from './loan-control.js';
import { markPriceControl } from './mark-price-control.js';

/**
 * The sandbox's test-control endpoints, for tests and tools that need a move the interfaces
 * leave to the exchange itself. Served only when the sandbox starts with `--test-control`:
 *
 * - `POST /test/transactions/{transaction_id}/status` with `{"status": "FILLED"}` (or any
 *   terminal state of the transaction table) ends a transaction as its settlements would.
 * - `POST /test/clock` with `{"advance_seconds": 30}` moves the sandbox's clock forward: OAuth
 *   requests, quotes, `--settle-after` and the interest of loans all follow it.
 * - `POST /test/oauth_requests/{oauth_request_public_id}/deny` with `{}` denies a pending OAuth
 *   request as its user would at the approval page.
 * - Withdrawals and deposits: see `funding-control.ts`.
 * - A product's mark price: see `mark-price-control.ts`.
 * - Loans of traders who are not sandbox users: see `loan-control.ts`.
 */
export interface TestControlOptions {
  sequencer: Sequencer;
  clock: TestClock;
}

/** The sandbox's clock, which `/test/clock` moves forward and never back. */
export class TestClock {
  private offsetMs = 0;
  constructor(private readonly base: () => number) {}
  readonly now = () => this.base() + this.offsetMs;
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

const terminal: readonly string[] = statesWith('transaction', 'terminal');
const maxAdvanceSeconds = 10 * 365 * 24 * 3600;

async function readJson(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  let text = '';
  for await (const chunk of request) {
    text += chunk;
    if (text.length > 4096) return undefined;
  }
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Answers the test-control paths; undefined for any other, which the interfaces answer. */
export function testControl(options: TestControlOptions) {
  return async (request: IncomingMessage, pathname: string): Promise<Serialized | undefined> => {
    if (!pathname.startsWith('/test/')) return undefined;
    const transaction = /^\/test\/transactions\/([^/]+)\/status$/.exec(pathname)?.[1];
    const denied = /^\/test\/oauth_requests\/([^/]+)\/deny$/.exec(pathname)?.[1];
    const funding = /^\/test\/(withdrawals\/[^/]+\/state|deposits)$/.test(pathname);
    const mark = /^\/test\/products\/[^/]+\/mark_price$/.test(pathname);
    const loan = /^\/test\/(loan_bids\/[^/]+\/borrow|loans\/[^/]+\/repay)$/.test(pathname);
    if (
      transaction === undefined &&
      denied === undefined &&
      !funding &&
      !mark &&
      !loan &&
      pathname !== '/test/clock'
    ) {
      return uncachedJson(404, { message: `No test control at ${pathname}` });
    }
    if (request.method !== 'POST') return notAllowed('POST', 'Test control takes POST');
    const body = await readJson(request);
    if (!body) return uncachedJson(400, { message: 'The body must be a JSON object' });
    if (funding) {
      const answer = await fundingControl(options.sequencer, options.clock.now, pathname, body);
      return answer ?? refused('withdrawal_id', 'must_be_an_integer');
    }

    if (mark) {
      const answer = await markPriceControl(options.sequencer, options.clock.now, pathname, body);
      return answer ?? refused('product_id', 'must_be_an_integer');
    }

    if (loan) {
      const answer = await loanControl(options.sequencer, options.clock.now, pathname, body);
      return answer ?? refused('loan_id', 'must_be_an_integer');
    }

    if (transaction !== undefined) {
      const { status } = body;
      if (typeof status !== 'string' || !terminal.includes(status)) {
        return refused('status', `must_be_one_of:${terminal.join(',')}`);
      }
      const ended = await options.sequencer.run((journal) => {
        const key = canonicalUuid(transaction);
        const found = key === undefined ? undefined : journal.partner.transactions.get(key);
        if (!found) return false;
        journal.touch('transaction', found).status = status as Transaction['status'];
        return true;
      });
      return ended
        ? uncachedJson(200, { transaction_id: transaction, status })
        : uncachedJson(404, { message: 'Transaction not found' });
    }

    if (denied !== undefined) {
      const status = await options.sequencer.run((journal) =>
        denyRequest(journal, denied, options.clock.now()),
      );
      if (status === undefined) return uncachedJson(404, { message: 'OAuth request not found' });
      return status === 'denied'
        ? uncachedJson(200, { oauth_request_public_id: denied, status })
        : refused('oauth_request_public_id', `not_pending:${status}`);
    }

    // The clock, the one other control.
    const seconds = body.advance_seconds;
    if (
      typeof seconds !== 'number' ||
      !Number.isInteger(seconds) ||
      seconds < 0 ||
      seconds > maxAdvanceSeconds
    ) {
      return refused('advance_seconds', `must_be_an_integer_from_0_to_${maxAdvanceSeconds}`);
    }
    options.clock.advance(seconds * 1000);
    // Interest is charged by the sandbox's clock: the days it just skipped are owed now.
    await options.sequencer.run((journal) => chargeDueInterest(journal, options.clock.now()));
    return uncachedJson(200, { now: Math.floor(options.clock.now() / 1000) });
  };
}
