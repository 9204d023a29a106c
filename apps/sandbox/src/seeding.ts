/**
 * What tests and tools give a running sandbox, as commands on the journal: users with a token
 * and funded accounts, more tokens, partner applications, products. Run through the Sequencer
 * (`sequencer.run((journal) => addUser(journal, ...))`), their records are stored as any
 * call's changes are, so a fixture needs no SQL and works on every store, memory included.
 */
import type { ApiToken } from '@exchange-kit/core/auth';
import {
  type NewProduct,
  newApiToken,
  productRecord,
  startingBalances,
  startingFunding,
  userRecord,
} from './demo-market.js';
import { postEntry } from './exchange/ledger.js';
import type { ExchangeState } from './state/exchange-state.js';
import type { Journal } from './state/journal.js';
import { D } from './state/records.js';

export interface NewUser {
  userId: number;
  tokenId: string;
  tokenSecret: string;
}

export interface NewPartner {
  userId: number;
  partnerId: number;
  publicApiKey: string;
  token: ApiToken;
}

/** Users added after the seed are numbered from 2001, clear of the seeded ones. */
const firstAddedUserId = 2001;

function nextUserId(exchange: ExchangeState): number {
  let last = firstAddedUserId - 1;
  for (const id of exchange.users.keys()) if (id > last) last = id;
  return last + 1;
}

/** Another API token of a user; each token has a nonce sequence of its own. */
export function addToken(journal: Journal, userId: number, token = newApiToken(userId)): ApiToken {
  journal.add('apiToken', { id: token.tokenId, userId, secret: token.tokenSecret });
  return token;
}

/**
 * A user with an API token and an account in every currency, funded with the starting
 * balances by a `funding` entry each; numbered after the users added so far unless told.
 */
export function addUser(
  journal: Journal,
  options: { userId?: number; firstName?: string; token?: ApiToken; now: number },
): NewUser {
  const userId = options.userId ?? nextUserId(journal.exchange);
  journal.add('user', userRecord(userId, options.firstName));
  const token = addToken(journal, userId, options.token);
  for (const [currency, balance] of Object.entries(startingBalances)) {
    postEntry(journal, {
      userId,
      currency,
      amount: new D(balance),
      sourceAction: startingFunding,
      source: null,
      now: options.now,
    });
  }
  return { userId, ...token };
}

/** A new user owning one partner application, with an API token and no accounts. */
export function addPartner(journal: Journal): NewPartner {
  const userId = nextUserId(journal.exchange);
  journal.add('user', userRecord(userId, 'Partner'));
  const token = addToken(journal, userId);
  const { applications } = journal.partner;
  const partnerId = Math.max(0, ...applications.keys()) + 1;
  const publicApiKey = `pk_test_${userId}`;
  journal.add('partnerApplication', { id: partnerId, userId, publicApiKey, name: 'Test' });
  return { userId, partnerId, publicApiKey, token };
}

/** A product with no orders yet; numbered after the existing ones unless an id is given. */
export function addProduct(journal: Journal, product: NewProduct): number {
  const { products } = journal.exchange;
  const id = product.id ?? Math.max(0, ...products.keys()) + 1;
  journal.add('product', productRecord(id, product));
  return id;
}
