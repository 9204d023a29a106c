import { randomUUID } from 'node:crypto';
import { select } from '../engine/values.js';
import type { Fault, ProxiedRequest, ProxiedResponse } from './fault-proxy.js';
import { operationOf, parse, type Row } from './faults/proxied.js';

/** Replaces every value at `pointer` (with `*` wildcards) by what `change` makes of it. */
function edit(body: unknown, pointer: string, change: (value: unknown, holder: Row) => unknown) {
  for (const found of select(body, pointer)) {
    const key = found.pointer.split('/').pop() as string;
    (found.parent as Row)[key] = change(found.value, found.parent as Row);
  }
}

/**
 * A server whose successful answers of `operationIds` break one statement about values:
 * `change` rewrites the parsed body (and sees the request body).
 */
function valueFault(
  covers: string,
  name: string,
  operationIds: string[],
  change: (body: unknown, request: unknown) => void,
): Fault {
  return {
    name,
    covers,
    response(request: ProxiedRequest, response: ProxiedResponse) {
      const operationId = operationOf(request);
      if (!operationId || !operationIds.includes(operationId) || response.status >= 300)
        return response;
      const body = parse(response.body);
      if (body === undefined) return response;
      change(body, parse(request.body));
      return { ...response, body: JSON.stringify(body) };
    },
  };
}

const orderWrites = [
  'editOrder',
  'editOrderByClientId',
  'updateOrderTpsl',
  'updateOrderTpslByClientId',
  'cancelOrder',
  'cancelOrderByClientId',
];
const instructions = ['/payload/funding_settlement', '/payload/payout_settlement'];
const toNumber = (value: unknown) => Number(value);
const hourMs = 3_600_000;

/** One fault per statement about values (the `values` table of spec/state-tables.yaml). */
export const valueFaults: Fault[] = [
  valueFault('VALUE-ORDER-TIMES-UNIX-SECONDS', 'order times in milliseconds', orderWrites, (b) => {
    edit(b, '/created_at', (v) => Number(v) * 1000);
    edit(b, '/updated_at', (v) => Number(v) * 1000);
  }),
  valueFault('VALUE-ORDER-PRODUCT-CODE', 'product_code PERPETUAL', orderWrites, (b) =>
    edit(b, '/product_code', () => 'PERPETUAL'),
  ),
  valueFault('VALUE-ORDER-PAIR-CODE', 'currency_pair_code in lowercase', orderWrites, (b) =>
    edit(b, '/currency_pair_code', (v) => String(v).toLowerCase()),
  ),
  valueFault(
    'VALUE-ORDER-SPOT-MARGIN-TYPE-NULL',
    'spot orders say margin_type cross',
    orderWrites,
    (b) => edit(b, '/margin_type', (v, order) => (order.trading_type === 'spot' ? 'cross' : v)),
  ),
  valueFault(
    'VALUE-ORDER-TIMES-UNIX-SECONDS',
    'listed and read order times in milliseconds',
    ['createOrder', 'getOrder', 'listOrders'],
    (b) => {
      for (const at of [
        '/created_at',
        '/updated_at',
        '/models/*/created_at',
        '/models/*/updated_at',
      ])
        edit(b, at, (v) => Number(v) * 1000);
    },
  ),
  valueFault(
    'VALUE-ORDER-SPOT-MARGIN-TYPE-NULL',
    'listed spot orders say margin_type cross',
    ['listOrders'],
    (b) =>
      edit(b, '/models/*/margin_type', (v, order) => (order.trading_type === 'spot' ? 'cross' : v)),
  ),
  valueFault('VALUE-ORDER-MARGIN-DECIMAL', 'margin_used as a JSON number', orderWrites, (b) =>
    edit(b, '/margin_used', toNumber),
  ),
  valueFault('VALUE-LADDER-PAIRS-DECIMAL', 'ladder pairs as JSON numbers', ['getLoanBook'], (b) =>
    edit(b, '/bids/*', (pair) => (pair as unknown[]).map(toNumber)),
  ),
  valueFault(
    'VALUE-LADDER-BIDS-ASCENDING',
    'ladder bids highest rate first',
    ['getLoanBook'],
    (b) => edit(b, '/bids', (bids) => [...(bids as unknown[])].reverse()),
  ),
  valueFault(
    'VALUE-LADDER-TIMESTAMP-SECONDS',
    'ladder timestamp in milliseconds',
    ['getLoanBook'],
    (b) => edit(b, '/timestamp', (v) => String(Math.round(Number(v) * 1000))),
  ),
  valueFault(
    'VALUE-OAUTH-EXPIRES-UNIX-SECONDS',
    'OAuth expires in milliseconds',
    ['createOAuthRequest'],
    (b) => edit(b, '/expires', (v) => Number(v) * 1000),
  ),
  valueFault(
    'VALUE-OAUTH-API-CHALLENGE-HREF',
    'api_challenge_href names the public request id',
    ['createOAuthRequest'],
    (b) =>
      edit(b, '/api_challenge_href', (v, oauth) =>
        String(v).replace(
          String(oauth.oauth_request_private_id),
          String(oauth.oauth_request_public_id),
        ),
      ),
  ),
  valueFault(
    'VALUE-OAUTH-APP-CHALLENGE-HREF',
    'app_challenge_href is a relative path',
    ['createOAuthRequest'],
    (b) => edit(b, '/app_challenge_href', (v) => new URL(String(v)).pathname),
  ),
  valueFault(
    'VALUE-USER-EMAIL-CONFIRMED-SECONDS',
    'email_confirmed_at in milliseconds',
    ['getUserContext'],
    (b) => edit(b, '/email_confirmed_at', (v) => Number(v) * 1000),
  ),
  valueFault('VALUE-ACCOUNT-DECIMALS', 'crypto balances as JSON numbers', ['getAccounts'], (b) =>
    edit(b, '/crypto_accounts/*/balance', toNumber),
  ),
  valueFault(
    'VALUE-ACCOUNT-FIAT-RATES-NULL',
    'fiat accounts carry an offer rate',
    ['getAccounts'],
    (b) => edit(b, '/fiat_accounts/*/lowest_offer_interest_rate', () => '0.0001'),
  ),
  valueFault('VALUE-ACCOUNT-CURRENCY-TYPE', 'fiat accounts say crypto', ['getAccounts'], (b) =>
    edit(b, '/fiat_accounts/*/currency_type', () => 'crypto'),
  ),
  valueFault(
    'VALUE-ACCOUNT-PUSH-CHANNEL',
    'push_channel keeps the currency in uppercase',
    ['getAccounts'],
    (b) =>
      edit(
        b,
        '/*/*/push_channel',
        (v, account) =>
          `${String(v).replace(/_account_.*$/, '')}_account_${String(account.currency).toUpperCase()}`,
      ),
  ),
  valueFault(
    'VALUE-ACCOUNT-PUSHER-CHANNEL',
    'pusher_channel with a private- prefix',
    ['getAccounts'],
    (b) => edit(b, '/*/*/pusher_channel', (v) => `private-${String(v)}`),
  ),
  valueFault('VALUE-QE-CLIENT-REF-ECHO', 'client_ref not echoed', ['intentToTrade'], (b) =>
    edit(b, '/payload/client_ref', (v) => `${String(v ?? 'none')}-changed`),
  ),
  valueFault(
    'VALUE-QE-INSTRUCTION-METHOD',
    'the funding instruction carries another method',
    ['intentToTrade'],
    (b) =>
      edit(b, '/payload/funding_settlement/method', (v) =>
        v === 'BLOCKCHAIN_TRANSFER' ? 'SERVICE_PARTNER_WALLET' : 'BLOCKCHAIN_TRANSFER',
      ),
  ),
  valueFault(
    'VALUE-QE-INSTRUCTION-TRANSACTION-ID',
    'instructions name another transaction',
    ['intentToTrade'],
    (b) => {
      for (const side of instructions) edit(b, `${side}/transaction_id`, () => randomUUID());
    },
  ),
  valueFault(
    'VALUE-QE-INSTRUCTION-DIRECTION',
    'the funding instruction says PAYOUT',
    ['intentToTrade'],
    (b) => edit(b, '/payload/funding_settlement/direction', () => 'PAYOUT'),
  ),
  valueFault(
    'VALUE-QE-INSTRUCTION-QUANTITY-DECIMAL',
    'instruction quantity as a JSON number',
    ['intentToTrade'],
    (b) => {
      for (const side of instructions) edit(b, `${side}/quantity`, toNumber);
    },
  ),
  valueFault(
    'VALUE-QE-EXPIRES-FORMS',
    'expires.unix_ms as a string',
    ['intentToTrade', 'setSettlementMethod', 'setSettlementParameters'],
    (b) => {
      for (const side of [...instructions, '/payload']) edit(b, `${side}/expires/unix_ms`, String);
    },
  ),
  valueFault(
    'VALUE-QE-EXPIRES-ONE-INSTANT',
    'expires.iso8601 an hour after unix_ms',
    ['intentToTrade', 'setSettlementMethod', 'setSettlementParameters'],
    (b) => {
      for (const side of [...instructions, '/payload'])
        edit(b, `${side}/expires/iso8601`, (v) =>
          new Date(Date.parse(String(v)) + hourMs).toISOString(),
        );
    },
  ),
  valueFault(
    'VALUE-QE-EXPIRES-TTL',
    'expires.ttl_ms of 30000',
    ['intentToTrade', 'setSettlementMethod', 'setSettlementParameters'],
    (b) => {
      for (const side of [...instructions, '/payload'])
        edit(b, `${side}/expires/ttl_ms`, () => 30_000);
    },
  ),
  valueFault(
    'VALUE-QE-EXPIRES-FROM-QUOTE',
    'instructions expire an hour late',
    ['intentToTrade'],
    (b) => {
      for (const side of instructions)
        edit(b, `${side}/expires`, (v) => {
          const expires = v as Row;
          const late = Number(expires.unix_ms) + hourMs;
          return { ...expires, unix_ms: late, iso8601: new Date(late).toISOString() };
        });
    },
  ),
  valueFault(
    'VALUE-QE-PARAMETER-TYPES',
    'transaction_key of type RAW_TRANSACTION',
    ['intentToTrade', 'setSettlementMethod', 'setSettlementParameters'],
    (b) => {
      for (const side of [...instructions, '/payload'])
        edit(b, `${side}/required_input_parameters/transaction_key/type`, () => 'RAW_TRANSACTION');
    },
  ),
  valueFault(
    'VALUE-QE-RECEIVED-INPUT-ECHO',
    'received_input changes the value given',
    ['intentToTrade'],
    (b) => {
      for (const side of instructions)
        edit(b, `${side}/received_input/*/value`, (v) => `${String(v)}0`);
    },
  ),
  valueFault(
    'VALUE-INTENT-CREATED-AT-MILLIS',
    'intent created_at in seconds',
    ['createIntent'],
    (b) => edit(b, '/payload/created_at', (v) => String(Math.floor(Number(v) / 1000))),
  ),
  valueFault('VALUE-INTENT-ECHO', 'the intent gains a partner tag', ['createIntent'], (b) =>
    edit(b, '/payload/partner_tags', (v) => [...((v as unknown[]) ?? []), 'added-by-server']),
  ),
  valueFault(
    'VALUE-SESSION-ENVIRONMENT',
    'the session names the other environment',
    ['createSession'],
    (b) => edit(b, '/payload/environment', (v) => (v === 'SANDBOX' ? 'PRODUCTION' : 'SANDBOX')),
  ),
  valueFault('VALUE-SESSION-COUNTRY-CODE', 'suggested_country as a name', ['createSession'], (b) =>
    edit(b, '/payload/client_info/suggested_country', () => 'Singapore'),
  ),
  valueFault(
    'VALUE-SESSION-TERMS-HREF',
    'the terms of service href is relative',
    ['createSession'],
    (b) => edit(b, '/payload/_links/terms_of_service/href', (v) => new URL(String(v)).pathname),
  ),
  valueFault(
    'VALUE-PRICE-LEVELS-BEST-FIRST',
    'sell levels worst price first',
    ['getPriceLevels'],
    (b) => edit(b, '/sell_price_levels', (levels) => [...(levels as unknown[])].reverse()),
  ),
  valueFault('VALUE-PRODUCT-ID-STRING', 'product ids as JSON numbers', ['listProducts'], (b) =>
    edit(b, '/*/id', toNumber),
  ),
  valueFault(
    'VALUE-FILL-TIMES-UNIX-SECONDS',
    "the caller's fills timed in milliseconds",
    ['listOwnExecutions'],
    (b) => edit(b, '/models/*/created_at', (v) => Number(v) * 1000),
  ),
  valueFault('VALUE-LISTS-NEWEST-FIRST', 'orders listed oldest first', ['listOrders'], (b) => {
    const page = b as Row;
    if (Array.isArray(page.models)) page.models.reverse();
  }),
  valueFault(
    'VALUE-HISTORY-TIMES-UNIX-SECONDS',
    'ledger transactions timed in milliseconds',
    ['listTransactions'],
    (b) => edit(b, '/models/*/created_at', (v) => Number(v) * 1000),
  ),
];
