/**
 * The demo market a sandbox starts with, as commands on the journal: written once to a new
 * store through the Sequencer (`store/seed.ts`), and run on a state in memory for the tests of
 * the rules (`testing/memory-sandbox.ts`), so both start from one market.
 */
import type { DemoCredentials } from './config.js';
import {
  demoCurrencies,
  demoLoanBook,
  demoProducts,
  demoUserId,
  houseRecord,
  marketMakerId,
  productRecord,
  secondDemoUserId,
} from './demo-market.js';
import { addToken, addUser } from './seeding.js';
import type { Journal } from './state/journal.js';

/**
 * A demo user with the configured token: added on the first start, and given the token on a
 * later one, unless another user holds its id.
 */
function ensureDemoUser(
  journal: Journal,
  options: { userId: number; firstName: string; tokenId: string; tokenSecret: string; now: number },
): void {
  const { userId, tokenId, tokenSecret } = options;
  if (!journal.exchange.users.has(userId)) {
    addUser(journal, { ...options, token: { tokenId, tokenSecret } });
    return;
  }
  const held = journal.exchange.tokens.get(tokenId);
  if (held && (held.userId !== userId || held.secret === tokenSecret)) return;
  addToken(journal, userId, { tokenId, tokenSecret });
}

/**
 * Seeds the market (currencies, products, loan book, a market maker) when the state has no
 * product yet, and makes sure the house, the demo users, their tokens and the demo partner
 * application match `credentials` on every start. Whether the market was new: its maker's
 * book is placed after, by calls (`placeDemoBook`).
 */
export function seedDemo(journal: Journal, credentials: DemoCredentials, now: number): boolean {
  const { exchange, partner } = journal;
  const fresh = exchange.products.size === 0;
  if (fresh) {
    for (const currency of demoCurrencies()) journal.add('currency', currency);
    for (const product of demoProducts) journal.add('product', productRecord(product.id, product));
    for (const [currency, side, rate, amount] of demoLoanBook) {
      journal.add('loanBookLevel', { currency, side, rate, amount });
    }
    addUser(journal, { userId: marketMakerId, firstName: 'Market maker', now });
  }
  // Stores seeded before the ledger have no house yet.
  const house = houseRecord();
  if (!exchange.users.has(house.id)) journal.add('user', house);
  ensureDemoUser(journal, {
    userId: demoUserId,
    firstName: 'Demo',
    tokenId: credentials.tokenId,
    tokenSecret: credentials.tokenSecret,
    now,
  });
  ensureDemoUser(journal, {
    userId: secondDemoUserId,
    firstName: 'Second demo',
    tokenId: credentials.secondTokenId,
    tokenSecret: credentials.secondTokenSecret,
    now,
  });
  if (!partner.applicationsByKey.has(credentials.publicApiKey)) {
    journal.add('partnerApplication', {
      id: Math.max(0, ...partner.applications.keys()) + 1,
      userId: demoUserId,
      publicApiKey: credentials.publicApiKey,
      name: 'Demo partner',
    });
  }
  return fresh;
}
