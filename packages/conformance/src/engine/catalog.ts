import { bundledDocuments } from '@exchange-kit/contract/documents';
import {
  describeOrigin,
  type Level,
  type Requirement,
  requirements,
  tables,
} from './requirements.js';
import { deref, operation, operations } from './spec.js';
import type { ValueCheck } from './values.js';

/** A part of the interfaces a server may offer; an implementer runs the ones theirs has. */
export const profiles = {
  orders: 'Orders: edit, take profit / stop loss, cancel one or all, and their fills',
  'loan-book': 'Loan book and public market data',
  oauth: 'OAuth requests and the user data read through them',
  'partner-sessions': 'Quick Exchange sessions and intents',
  'partner-transactions': 'Quick Exchange transactions and settlement',
  auth: 'Authentication attacks: each forged call is refused and changes nothing',
  input: 'Bad input derived from the request schemas: 4xx, never 5xx, nothing changed',
  model:
    'Random sequences of order operations checked step by step against a model of the state tables',
  withdrawals:
    'Withdrawals held, cancelled, processed and declined as the withdrawal table says; bank accounts and deposits',
  events:
    'The websocket events: the Pusher protocol, what a REST write publishes, and who may subscribe to a private channel',
  loans:
    "Loan bids held from the caller's balance and released when closed, and the caller's loans",
} as const;

export type Profile = keyof typeof profiles;

export const profileNames = Object.keys(profiles) as Profile[];

// Spec tags group operations; each tag belongs to the profile that exercises it.
const profileOfTag: Record<string, Profile> = {
  orders: 'orders',
  executions: 'orders',
  trades: 'orders',
  ledger: 'orders',
  'loan book': 'loan-book',
  products: 'loan-book',
  currencies: 'loan-book',
  oauth: 'oauth',
  user: 'oauth',
  accounts: 'oauth',
  sessions: 'partner-sessions',
  intents: 'partner-sessions',
  transactions: 'partner-transactions',
  settlement: 'partner-transactions',
  withdrawals: 'withdrawals',
  fees: 'orders',
  loans: 'loans',
};

export type RequirementKind =
  | 'state-table'
  | 'value'
  | 'response'
  | 'cancel-all-filter'
  | 'list-filter'
  | 'auth'
  | 'input'
  | 'model'
  | 'events';

/** A requirement the suite gives a verdict on: a state-table row or one the suite derives. */
export interface ConformanceRequirement {
  id: string;
  level: Level;
  kind: RequirementKind;
  /** The requirement runs when any of these profiles is selected; the first one names it. */
  profiles: Profile[];
  /** Where it comes from, for reports: a table row, a schema, a convention. */
  origin: string;
  /** What a conforming server does, in one sentence. */
  summary: string;
  operations: readonly string[];
  /** The state-table row, for requirements that come from one. */
  row?: Requirement;
  /** The sentence of the interface description (or of the conventions) it makes checkable. */
  sentence?: string;
  /** What a value requirement checks on every successful answer of its operations. */
  checks?: readonly ValueCheck[];
}

export function profilesOf(operationIds: readonly string[]): Profile[] {
  const found = new Set<Profile>();
  for (const id of operationIds) {
    for (const tag of operation(id).tags) {
      const profile = profileOfTag[tag];
      if (profile) found.add(profile);
    }
  }
  return [...found];
}

/** A statement about values: checked on every successful answer of its operations. */
function valueRequirement(row: Requirement): ConformanceRequirement {
  const source = row.source === 'convention' ? 'conventions' : 'interface description';
  return {
    id: row.id,
    level: row.level,
    kind: 'value',
    profiles: profilesOf(row.operations),
    origin: `${tables[row.table]?.title ?? row.table}, statement ${row.row} (${source})`,
    summary: `${row.trigger}: ${row.expect.also ?? ''}`,
    operations: row.operations,
    row,
    sentence: row.sentence,
    checks: row.check as readonly ValueCheck[],
  };
}

function stateTableRequirement(row: Requirement): ConformanceRequirement {
  if (row.check) return valueRequirement(row);
  const expected = [
    `status ${row.expect.status}`,
    row.expect.next && `then ${row.expect.next}`,
    row.expect.also,
  ]
    .filter(Boolean)
    .join('; ');
  return {
    id: row.id,
    level: row.level,
    kind: 'state-table',
    profiles: profilesOf(row.operations),
    origin: describeOrigin(row),
    summary: `${row.trigger} when ${row.condition}: ${expected}`,
    operations: row.operations,
    row,
  };
}

/** `cancelOrderByClientId` → `CANCEL-ORDER-BY-CLIENT-ID`. */
export function kebabUpper(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[_\s]+/g, '-')
    .toUpperCase();
}

export function responseRequirementId(operationId: string): string {
  return `RESPONSE-${kebabUpper(operationId)}`;
}

function responseRequirements(): ConformanceRequirement[] {
  return [...operations.values()].map((op) => ({
    id: responseRequirementId(op.operationId),
    level: 'MUST',
    kind: 'response',
    profiles: profilesOf([op.operationId]),
    origin: `${op.api}.openapi.yaml ${op.method} ${op.path} responses`,
    summary: `Every ${op.operationId} response has a documented status, content type and a body valid against its schema`,
    operations: [op.operationId],
  }));
}

/** The filters of cancel_all, read from the CancelAllFilters schema. */
export function cancelAllFilterNames(): string[] {
  const media = operation('cancelAllOrders').requestBody?.content?.['application/json'];
  const schema = deref('exchange', media?.schema) as { properties?: Record<string, unknown> };
  return Object.keys(schema?.properties ?? {});
}

export function cancelAllFilterRequirementId(filter: string): string {
  return `ORDER-CANCEL-ALL-FILTER-${kebabUpper(filter)}`;
}

function cancelAllFilterRequirements(): ConformanceRequirement[] {
  return cancelAllFilterNames().map((filter) => ({
    id: cancelAllFilterRequirementId(filter),
    level: 'MUST',
    kind: 'cancel-all-filter',
    profiles: ['orders'],
    origin: 'Order, row 2 (cancel_all filter, exchange.openapi.yaml CancelAllFilters)',
    summary: `cancel_all with only ${filter} cancels the live orders that match it, lists exactly those, and leaves the others live`,
    operations: ['cancelAllOrders'],
  }));
}

/**
 * The filters of GET /orders: its query parameters that keep only the orders they name, as
 * their descriptions say ("Only orders ...").
 */
export function orderListFilterNames(): string[] {
  const op = operation('listOrders');
  const item = (bundledDocuments.exchange.paths as Record<string, Record<string, unknown>>)[
    op.path
  ];
  const parameters = ((item?.[op.method.toLowerCase()] as { parameters?: unknown[] } | undefined)
    ?.parameters ?? []) as unknown[];
  return parameters
    .map(
      (parameter) =>
        deref('exchange', parameter) as { name?: string; in?: string; description?: string },
    )
    .filter((parameter) => parameter.in === 'query' && /^Only /.test(parameter.description ?? ''))
    .map((parameter) => String(parameter.name));
}

export function orderListFilterRequirementId(filter: string): string {
  return `ORDER-LIST-FILTER-${kebabUpper(filter)}`;
}

/** The filters of the partner's transaction list, and the count its selection gives. */
const partnerListFilters: ConformanceRequirement = {
  id: 'PARTNER-LIST-FILTERS',
  level: 'SHOULD',
  kind: 'list-filter',
  profiles: ['partner-transactions'],
  origin: 'GET /api/v1/partner/{public_api_key}/transactions (partner.openapi.yaml, convention)',
  summary:
    "The partner's transactions listed by status, and between min_ts and max_ts (inclusive), are those the filters name and no other, and selection.count is how many are listed",
  operations: ['listPartnerTransactions'],
};

function orderListFilterRequirements(): ConformanceRequirement[] {
  return orderListFilterNames().map((filter) => ({
    id: orderListFilterRequirementId(filter),
    level: 'SHOULD',
    kind: 'list-filter',
    profiles: ['orders'],
    origin: `GET /orders ${filter} (exchange.openapi.yaml listOrders, convention)`,
    summary: `GET /orders with ${filter} lists the caller's orders it names, and none it does not`,
    operations: ['listOrders'],
  }));
}

const attack = (
  id: string,
  summary: string,
  operationIds: string[] = ['cancelOrder'],
): ConformanceRequirement => ({
  id,
  level: 'MUST',
  kind: 'auth',
  profiles: ['auth'],
  origin: 'Authentication (conventions: X-Service-Auth, HS256, path with query, increasing nonce)',
  summary: `${summary}: 401 and the state is unchanged`,
  operations: operationIds,
});

const authRequirements: ConformanceRequirement[] = [
  attack('AUTH-MISSING-HEADER', 'A private call without X-Service-Auth'),
  attack('AUTH-BAD-SIGNATURE', 'A JWT signed with another secret'),
  attack('AUTH-ALG-NONE', 'An unsigned JWT (alg none)'),
  attack('AUTH-ALG-OTHER', 'A JWT signed with the right secret but HS512'),
  attack('AUTH-NONCE-REPLAYED', 'A JWT replayed after the call it signed was accepted', [
    'editOrder',
  ]),
  attack('AUTH-NONCE-SMALLER', 'A fresh JWT whose nonce is smaller than one already accepted'),
  {
    ...attack(
      'AUTH-NONCE-LESS-REPLAYED',
      'A POST /orders JWT without nonce sent again, with another order, once its own was placed',
      ['createOrder'],
    ),
    origin:
      'Authentication (exchange.openapi.yaml ServiceAuthPayload: a JWT without nonce places one order)',
  },
  attack('AUTH-PATH-MISMATCH', 'A JWT whose path names another order'),
  attack('AUTH-QUERY-MISMATCH', 'A JWT whose path leaves out the query string of the request'),
  attack(
    'AUTH-OAUTH-UNAPPROVED',
    'An OAuth-delegated JWT carrying the ids of a request the user has not approved',
    ['getUserContext'],
  ),
  {
    id: 'AUTH-OAUTH-BEYOND-GRANT',
    level: 'MUST',
    kind: 'auth',
    profiles: ['auth'],
    origin: 'Authentication (x-permission of each operation in the spec; the sandbox)',
    summary:
      'A call through an approved OAuth request whose grant lacks the permission the operation states: 403 naming the permission, and the state is unchanged; one to an operation that takes no delegated call (no permission): 403',
    operations: ['cancelOrder', 'getOAuthRequest'],
  },
  {
    id: 'AUTH-OTHER-USERS-OBJECTS',
    level: 'MUST',
    kind: 'auth',
    profiles: ['auth'],
    origin:
      "Each operation's 404 (exchange.openapi.yaml: no order, loan bid, trading account or OAuth request of the caller's has this id)",
    summary:
      "Another trader's order, loan bid, trading account and OAuth request named by the caller (read, edited, cancelled, closed, set): 404, as an unknown id is, and each unchanged",
    operations: [
      'getOrder',
      'editOrder',
      'cancelOrder',
      'closeLoanBid',
      'getTradingAccount',
      'updateTradingAccount',
      'getOAuthRequest',
    ],
  },
  attack(
    'AUTH-PARTNER-DELEGATE-PATH',
    'A partner JWT whose delegate_path names another partner path',
    ['createIntent'],
  ),
  {
    id: 'AUTH-CLIENT-REF-OTHER-SESSION',
    level: 'MUST',
    kind: 'auth',
    profiles: ['partner-transactions'],
    origin:
      'intent_to_trade (partner.openapi.yaml: a client_ref names one transaction of one session)',
    summary:
      "intent_to_trade from one user session with the client_ref of another session's transaction: a 4xx, showing nothing of that transaction",
    operations: ['intentToTrade'],
  },
];

/** The operations the bad-input requirements send malformed bodies to. */
export const badInputOperations = [
  'createOrder',
  'editOrder',
  'cancelAllOrders',
  'createLoanBid',
  'createCryptoWithdrawal',
  'estimateFee',
  'createIntent',
  'intentToTrade',
];

const input = (id: string, summary: string): ConformanceRequirement => ({
  id,
  level: 'MUST',
  kind: 'input',
  profiles: ['input'],
  origin: 'Request schemas of the specs; error statuses 400/422 (conventions)',
  summary: `${summary}: a 4xx answer, never 5xx, and nothing changes`,
  operations: badInputOperations,
});

/** An order refused for what the rules of createOrder and editOrder name. */
const refusal = (id: string, summary: string): ConformanceRequirement => ({
  id,
  level: 'SHOULD',
  kind: 'input',
  profiles: ['orders'],
  origin: 'createOrder and editOrder (exchange.openapi.yaml: their descriptions and x-error-codes)',
  summary: `${summary}: 422 naming the field, and nothing is placed or filled`,
  operations: ['createOrder', 'editOrder'],
});

const orderRefusalRequirements: ConformanceRequirement[] = [
  refusal(
    'ORDER-REFUSED-OFF-TICK',
    'A price half a tick off, on a new order and on an edit (price)',
  ),
  refusal(
    'ORDER-REFUSED-OFF-QUANTITY-STEP',
    "A quantity one decimal finer than its base currency's assets_precision (quantity)",
  ),
  refusal(
    'ORDER-REFUSED-POST-ONLY-CROSSING',
    'A limit_post_only buy at a price that crosses the book (price)',
  ),
  refusal(
    'ORDER-REFUSED-CLIENT-ID-BYTES',
    'A client_order_id of 36 characters and 72 bytes (client_order_id)',
  ),
  refusal(
    'ORDER-REFUSED-CLIENT-ID-REUSED',
    'A client_order_id of an order placed and cancelled, used again (client_order_id)',
  ),
  refusal(
    'ORDER-EDIT-PARTIALLY-FILLED-REFUSED',
    'An edit of a partly filled order, which stays as it was (order)',
  ),
];

const inputRequirements: ConformanceRequirement[] = [
  input('INPUT-MALFORMED-JSON', 'A body that is not JSON'),
  input('INPUT-MISSING-REQUIRED', 'A body without a field its schema requires'),
  input('INPUT-WRONG-TYPE', 'A field of the wrong JSON type'),
  input('INPUT-UNKNOWN-ENUM', 'A value outside the enumeration of its field'),
  input('INPUT-TOO-LONG', 'A string longer than its maxLength (partner_order_id of 41 characters)'),
  input(
    'INPUT-PATTERN',
    'A string that breaks its pattern (a non-decimal quantity, a malformed symbol)',
  ),
  input('INPUT-NEGATIVE-QUANTITY', 'A negative quantity'),
  input(
    'INPUT-UNKNOWN-FIELD',
    'A key a closed object (additionalProperties: false) does not take, such as a misspelled cancel_all filter',
  ),
  {
    id: 'INPUT-REPEATED-QUERY',
    level: 'SHOULD',
    kind: 'input',
    profiles: ['input'],
    origin: 'info of exchange.openapi.yaml, Bounds (convention)',
    summary:
      'A query parameter given more than once (GET /executions with limit=1&limit=2): 400 naming it, given_more_than_once, never an answer for one of its values',
    operations: ['listExecutions'],
  },
  {
    id: 'INPUT-REPEATED-KEY',
    level: 'SHOULD',
    kind: 'input',
    profiles: ['input'],
    origin: 'info of exchange.openapi.yaml, Bounds (project decision)',
    summary:
      'A body whose object gives a key twice (POST /orders with two quantities): 4xx naming it, given_more_than_once, never an order of either value',
    operations: ['createOrder'],
  },
  {
    id: 'INPUT-WHITESPACE-BODY',
    level: 'MUST',
    kind: 'input',
    profiles: ['input'],
    origin: 'info of exchange.openapi.yaml, Bounds; CancelAllFilters (project decision)',
    summary:
      'A body of whitespace alone is never read as no body (PUT /orders/cancel_all with one space as JSON): a 4xx, and every live order stays live, where no body cancels them all',
    operations: ['cancelAllOrders'],
  },
  {
    id: 'INPUT-GENERATED-VALID',
    level: 'MUST',
    kind: 'input',
    profiles: ['input'],
    origin: 'Request schemas of the specs (bodies generated with fast-check, seeded by --seed)',
    summary:
      'Request bodies generated valid against their schema (up to --max-examples per operation) are never answered 5xx; a failure is shrunk to the smallest body that still fails',
    operations: badInputOperations,
  },
  {
    id: 'INPUT-GENERATED-INVALID',
    level: 'MUST',
    kind: 'input',
    profiles: ['input'],
    origin: 'Request schemas of the specs (bodies generated with fast-check, seeded by --seed)',
    summary:
      'Generated valid bodies, each broken in one way its schema forbids, are answered 4xx, never 2xx or 5xx; a failure is shrunk to the smallest body that still fails',
    operations: badInputOperations,
  },
];

const quoteRequirements: ConformanceRequirement[] = [
  {
    id: 'INPUT-QUANTITY-2-NOT-QUOTED',
    level: 'MUST',
    kind: 'input',
    profiles: ['partner-transactions'],
    origin: 'intent_to_trade (partner.openapi.yaml: quantity_2 must be what the quote gives)',
    summary:
      'intent_to_trade with a quantity_2 no quote gave (1, with a quote_id the server never issued): a 4xx naming quantity_2, never a transaction at the price the user named',
    operations: ['intentToTrade'],
  },
];

const modelRequirements: ConformanceRequirement[] = [
  {
    id: 'MODEL-ORDER-SEQUENCES',
    level: 'MUST',
    kind: 'model',
    profiles: ['model'],
    origin:
      'Order table, every row (fast-check commands against a model built from the state tables, seeded by --seed)',
    summary:
      'Random sequences of place, edit, update_tpsl, cancel and cancel_all (up to --max-examples, by id and by client order id) answer each step with the status of its row and leave every order in the state the rows give, read back after each step; a failure is shrunk to the shortest sequence that still fails',
    operations: [
      'createOrder',
      'editOrder',
      'editOrderByClientId',
      'updateOrderTpsl',
      'updateOrderTpslByClientId',
      'cancelOrder',
      'cancelOrderByClientId',
      'cancelAllOrders',
      'getOrder',
    ],
  },
  {
    id: 'MODEL-TRANSACTION-SEQUENCES',
    level: 'MUST',
    kind: 'model',
    profiles: ['model'],
    origin:
      'Quick Exchange transaction table, every row and the flags of its states (fast-check commands, seeded by --seed)',
    summary:
      'Random sequences of intent_to_trade (no method, both methods, a parameter missing), status reads and, when the adapter can end a transaction, its end in FILLED or CANCELLED: each creation answers as its row says, and a transaction reads back in the state the model holds, moving by itself only out of a state flagged polled and into a terminal one; a failure is shrunk to the shortest sequence',
    operations: ['intentToTrade', 'getTransactionStatus'],
  },
];

const asyncapi = 'exchange.asyncapi.yaml';

const event = (
  id: string,
  origin: string,
  summary: string,
  operationIds: string[] = [],
): ConformanceRequirement => ({
  id,
  level: 'MUST',
  kind: 'events',
  profiles: ['events'],
  origin: `${asyncapi} ${origin}`,
  summary,
  operations: operationIds,
});

const writes = ['createOrder', 'cancelOrder'];

const eventRequirements: ConformanceRequirement[] = [
  event(
    'EVENTS-GREETING',
    'operation greet (connectionEstablished)',
    'A new connection is greeted with pusher:connection_established carrying a socket_id and an activity_timeout',
  ),
  event(
    'EVENTS-PING',
    'operation ping',
    'pusher:ping is answered with pusher:pong, before the request sent after it',
  ),
  event(
    'EVENTS-SUBSCRIBE-PUBLIC',
    'operation subscribe, channel priceLadders',
    'Subscribing to a public channel (a side of the book) is answered pusher_internal:subscription_succeeded',
  ),
  event(
    'EVENTS-UNKNOWN-CHANNEL',
    'operation subscribe (reply error)',
    'An unknown channel and a malformed one are refused with pusher:error, and the connection still subscribes after',
  ),
  event(
    'EVENTS-PRIVATE-NEEDS-AUTH',
    'securitySchemes serviceAuth, channel userOrders',
    'A private channel (the user orders, the user) on a connection not authenticated is refused with pusher:error',
  ),
  event(
    'EVENTS-AUTH-REFUSED',
    'operation authenticate (reply authFailure)',
    'quoine:auth_request with a JWT signed with another secret is answered quoine:auth_failure, and a private channel stays refused',
  ),
  event(
    'EVENTS-AUTH-ACCEPTED',
    'operation authenticate (reply authSuccess)',
    "quoine:auth_request with a valid /realtime JWT is answered quoine:auth_success, and the user's orders channel and the user channel are then granted",
  ),
  event(
    'EVENTS-ONCE',
    'info (every REST change a channel covers is published on it once)',
    "An order placed then cancelled is published once per write on the user's orders channel, and each write once on the side of the book it changed",
    writes,
  ),
  event(
    'EVENTS-IN-ORDER',
    'info (published in order)',
    "An order's events come in the order of its writes: live, then cancelled",
    writes,
  ),
  event(
    'EVENTS-STORED-ONLY',
    'info (published after it is stored)',
    'Only answered, stored writes are published: a refused order publishes nothing, and every order event names an order a REST answer gave',
    writes,
  ),
  event(
    'EVENTS-PAYLOAD-VALID',
    'channels userOrders and priceLadders (payloads of the REST schemas)',
    "Every event the writes published is one its channel carries, with a payload valid against the channel's schema from the contract",
    writes,
  ),
  event(
    'EVENTS-OTHER-USER',
    'channel userAccount (only its owner may subscribe)',
    "After a valid authentication, another user's account channel is refused with pusher:error while the user's own push_channel is granted",
    ['getAccounts'],
  ),
  event(
    'EVENTS-MAKER-FILL',
    'channel userExecutions',
    "A fill of the caller's resting order, taken by another trader (the adapter's anotherTrader step), reaches the caller's user_executions_cash channel as GET /executions/me lists it",
  ),
  event(
    'EVENTS-MARK-MOVES-PRODUCT',
    'channel productCash',
    "A mark price moved (the adapter's moveMarkPrice step) reaches the product's product_cash channel, the product carrying the new mark_price",
  ),
];

/** Every requirement the suite gives a verdict on, state-table rows first, then values. */
export const catalog: readonly ConformanceRequirement[] = [
  ...requirements.filter((row) => !row.check).map(stateTableRequirement),
  ...requirements.filter((row) => row.check).map(stateTableRequirement),
  ...cancelAllFilterRequirements(),
  ...orderListFilterRequirements(),
  partnerListFilters,
  ...orderRefusalRequirements,
  ...authRequirements,
  ...inputRequirements,
  ...quoteRequirements,
  ...modelRequirements,
  ...eventRequirements,
  ...responseRequirements(),
];

export const catalogById: ReadonlyMap<string, ConformanceRequirement> = new Map(
  catalog.map((requirement) => [requirement.id, requirement]),
);
