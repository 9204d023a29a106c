import {
  type Account,
  D,
  type Fill,
  type Order,
  type OwnFill,
  type Position,
  type TrailingStop,
} from '../state/exchange-state.js';
import type { Changes } from '../state/journal.js';
import { getOrCreate } from '../state/lists.js';
import type { Asset, Price } from '../state/partner-state.js';
import {
  historyKinds,
  ownerKindOrder,
  type RecordKind,
  type Records,
  recordKindOrder,
} from '../state/sandbox-state.js';
import { countsMoved, countTables, writerSetting } from './counts-kept.js';
import type { Queryable } from './queryable.js';
import type { ColumnType, Table, Value } from './table.js';

/** The last nonce spent in one scope ("token:<id>", "session:<id>"). */
export interface NonceRow {
  scope: string;
  value: bigint;
}

/** `greatest` keeps a stored nonce rising whatever order writes land in. */
const nonceConflict =
  'ON CONFLICT (scope) DO UPDATE SET last_nonce = greatest(nonces.last_nonce, EXCLUDED.last_nonce)';

const sqlType = (type: ColumnType) => (type === 'digits' ? 'numeric' : type);

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

const orders: Table<Order> = {
  name: 'orders',
  columns: [
    ['id', 'bigint', 'id'],
    ['user_id', 'bigint', 'userId'],
    ['product_id', 'bigint', 'productId'],
    ['client_order_id', 'text', 'clientOrderId'],
    ['order_type', 'text', 'orderType'],
    ['side', 'text', 'side'],
    ['trading_type', 'text', 'tradingType'],
    ['quantity', 'numeric', 'quantity'],
    ['filled_quantity', 'numeric', 'filledQuantity'],
    ['price', 'numeric', 'price'],
    ['filled_value', 'numeric', 'filledValue'],
    ['fee_charged', 'numeric', 'feeCharged'],
    ['status', 'text', 'status'],
    ['leverage_level', 'integer', 'leverageLevel'],
    ['funding_currency', 'text', 'fundingCurrency'],
    ['take_profit', 'numeric', 'takeProfit'],
    ['stop_loss', 'numeric', 'stopLoss'],
    ['conditional', 'boolean', 'conditional'],
    ['trade_id', 'bigint', 'tradeId'],
    ['unwound_trade_id', 'bigint', 'unwoundTradeId'],
    ['trailing_stop_type', 'text', (o) => o.trailingStop?.type ?? null],
    ['trailing_stop_value', 'numeric', (o) => o.trailingStop?.value ?? null],
    ['reserved_amount', 'numeric', 'reservedAmount'],
    ['reserved_currency', 'text', 'reservedCurrency'],
    ['sequence', 'bigint', 'sequence'],
    ['created_at', 'bigint', 'createdAt'],
    ['updated_at', 'bigint', 'updatedAt'],
  ],
  onConflict: '',
  readBack: (column) => ({
    trailingStop:
      column('trailing_stop_type') === null
        ? null
        : {
            type: column('trailing_stop_type') as TrailingStop['type'],
            value: column('trailing_stop_value') as D,
          },
  }),
};
/** A row already there takes every new value but its key, the first column. */
function updateAllButId(table: Table<never>): string {
  const key = table.columns[0]?.[0] ?? 'id';
  const columns = table.columns.slice(1).map(([column]) => `${column} = EXCLUDED.${column}`);
  return `ON CONFLICT (${key}) DO UPDATE SET ${columns.join(', ')}`;
}
orders.onConflict = updateAllButId(orders as Table<never>);

const accounts: Table<Account> = {
  name: 'accounts',
  columns: [
    ['id', 'bigint', 'id'],
    ['user_id', 'bigint', 'userId'],
    ['currency', 'text', 'currency'],
    ['balance', 'numeric', 'balance'],
    ['reserved_balance', 'numeric', 'reserved'],
    ['address', 'text', 'address'],
  ],
  onConflict:
    'ON CONFLICT (id) DO UPDATE SET balance = EXCLUDED.balance, reserved_balance = EXCLUDED.reserved_balance',
};

const fills: Table<Fill> = {
  name: 'fills',
  columns: [
    ['id', 'bigint', 'id'],
    ['product_id', 'bigint', 'productId'],
    ['taker_order_id', 'bigint', 'takerOrderId'],
    ['maker_order_id', 'bigint', 'makerOrderId'],
    ['taker_side', 'text', 'takerSide'],
    ['price', 'numeric', 'price'],
    ['quantity', 'numeric', 'quantity'],
    ['created_at', 'bigint', 'createdAt'],
  ],
  onConflict: '',
};

/** Each fill's sides as their users see them, placed by the sandbox (migration 0022). */
const ownFills: Table<OwnFill> = {
  name: 'own_fills',
  columns: [
    ['user_id', 'bigint', 'userId'],
    ['product_id', 'bigint', 'productId'],
    ['place', 'bigint', 'place'],
    ['fill_id', 'bigint', 'fillId'],
    ['order_id', 'bigint', 'orderId'],
    ['taker', 'boolean', 'taker'],
    ['created_at', 'bigint', 'createdAt'],
  ],
  onConflict: '',
};

const positions: Table<Position> = {
  name: 'positions',
  columns: [
    ['id', 'bigint', 'id'],
    ['user_id', 'bigint', 'userId'],
    ['product_id', 'bigint', 'productId'],
    ['trading_type', 'text', 'tradingType'],
    ['side', 'text', 'side'],
    ['leverage_level', 'integer', 'leverageLevel'],
    ['funding_currency', 'text', 'fundingCurrency'],
    ['quantity', 'numeric', 'quantity'],
    ['open_value', 'numeric', 'openValue'],
    ['closed_quantity', 'numeric', 'closedQuantity'],
    ['closed_value', 'numeric', 'closedValue'],
    ['margin', 'numeric', 'margin'],
    ['realized_pnl', 'numeric', 'realizedPnl'],
    ['close_fee', 'numeric', 'closeFee'],
    ['status', 'text', 'status'],
    ['user_place', 'bigint', 'place'],
    ['created_at', 'bigint', 'createdAt'],
    ['updated_at', 'bigint', 'updatedAt'],
  ],
  onConflict: '',
};
positions.onConflict = updateAllButId(positions as Table<never>);

const nonces: Table<NonceRow> = {
  name: 'nonces',
  columns: [
    ['scope', 'text', 'scope'],
    ['last_nonce', 'numeric', (n) => String(n.value)],
  ],
  onConflict: nonceConflict,
};

/** The table of each kind of record, written whole, a row as memory holds the record. */
const recordTables: { [Name in RecordKind]: Table<Records[Name]> } = {
  currency: {
    name: 'currencies',
    columns: [
      ['code', 'text', 'code'],
      ['name', 'text', 'name'],
      ['currency_type', 'text', 'currencyType'],
      ['symbol', 'text', 'symbol'],
      ['depositable', 'boolean', 'depositable'],
      ['withdrawable', 'boolean', 'withdrawable'],
      ['assets_precision', 'integer', 'assetsPrecision'],
      ['minimum_withdrawal', 'numeric', 'minimumWithdrawal'],
      ['withdrawal_fee', 'numeric', 'withdrawalFee'],
      ['minimum_order_quantity', 'numeric', 'minimumOrderQuantity'],
      ['exchange_rate', 'numeric', 'exchangeRate'],
    ],
    onConflict: '',
  },
  loanBookLevel: {
    name: 'loan_book_levels',
    columns: [
      ['currency', 'text', 'currency'],
      ['side', 'text', 'side'],
      ['rate', 'digits', 'rate'],
      ['amount', 'digits', 'amount'],
    ],
    onConflict: 'ON CONFLICT (currency, side, rate) DO UPDATE SET amount = EXCLUDED.amount',
  },
  oauthRequest: {
    name: 'oauth_requests',
    columns: [
      ['public_id', 'uuid', 'publicId'],
      ['private_id', 'uuid', 'privateId'],
      ['app_token_id', 'text', 'appTokenId'],
      ['external_ref', 'text', 'externalRef'],
      ['created_at', 'bigint', 'createdAt'],
      ['expires_at', 'bigint', 'expiresAt'],
      ['approved_by_user_id', 'bigint', 'approvedByUserId'],
      ['approved_at', 'bigint', 'approvedAt'],
      ['denied_at', 'bigint', 'deniedAt'],
    ],
    onConflict: '',
  },
  session: {
    name: 'qe_sessions',
    columns: [
      ['id', 'uuid', 'id'],
      ['partner_id', 'bigint', 'partnerId'],
      ['secret', 'text', 'secret'],
      ['suggested_country', 'text', 'suggestedCountry'],
      ['default_transaction', 'jsonb', 'defaultTransaction'],
      ['widget_configuration', 'jsonb', 'widgetConfiguration'],
      ['user_locale', 'text', 'userLocale'],
      ['ancestor_origins', 'text', 'ancestorOrigins'],
      ['created_at', 'bigint', 'createdAt'],
    ],
    onConflict: '',
  },
  intent: {
    name: 'qe_intents',
    columns: [
      ['id', 'uuid', 'id'],
      ['partner_id', 'bigint', 'partnerId'],
      ['strategy', 'text', 'strategy'],
      ['payout_method', 'text', 'payoutMethod'],
      ['payout_currency', 'text', 'payoutCurrency'],
      ['payout_quantity', 'digits', 'payoutQuantity'],
      ['funding_method', 'text', 'fundingMethod'],
      ['funding_currency', 'text', 'fundingCurrency'],
      ['funding_quantity', 'digits', 'fundingQuantity'],
      ['partner_order_id', 'text', 'partnerOrderId'],
      ['partner_ref', 'text', 'partnerRef'],
      ['partner_tags', 'jsonb', 'partnerTags'],
      ['expires_at', 'bigint', 'expiresAt'],
      ['created_at', 'bigint', 'createdAt'],
      ['consumed_at', 'bigint', 'consumedAt'],
    ],
    onConflict: '',
  },
  partnerClock: {
    name: 'qe_partner_clocks',
    columns: [
      ['partner_id', 'bigint', 'partnerId'],
      ['last_created_at', 'bigint', 'lastCreatedAt'],
    ],
    onConflict: '',
  },
  transaction: {
    name: 'qe_transactions',
    columns: [
      ['id', 'uuid', 'id'],
      ['partner_id', 'bigint', 'partnerId'],
      ['session_id', 'uuid', 'sessionId'],
      ['intent_id', 'uuid', 'intentId'],
      ['client_ref', 'text', 'clientRef'],
      ['api_key', 'text', 'apiKey'],
      ['symbol', 'text', 'symbol'],
      ['side', 'text', 'side'],
      ['funding_currency', 'text', 'fundingCurrency'],
      ['funding_quantity', 'digits', 'fundingQuantity'],
      ['payout_currency', 'text', 'payoutCurrency'],
      ['payout_quantity', 'digits', 'payoutQuantity'],
      ['quote_id', 'text', 'quoteId'],
      ['quoted_at', 'bigint', 'quotedAt'],
      ['status', 'text', 'status'],
      ['partner_order_id', 'text', 'partnerOrderId'],
      ['partner_ref', 'text', 'partnerRef'],
      ['partner_tags', 'jsonb', 'partnerTags'],
      ['created_at', 'bigint', 'createdAt'],
      ['pending_since', 'bigint', 'pendingSince'],
    ],
    onConflict: '',
  },
  instruction: {
    name: 'qe_settlement_instructions',
    columns: [
      ['id', 'uuid', 'id'],
      ['transaction_id', 'uuid', 'transactionId'],
      ['direction', 'text', 'direction'],
      ['method', 'text', 'method'],
      ['currency', 'text', 'currency'],
      ['quantity', 'digits', 'quantity'],
      ['status', 'text', 'status'],
      ['expires_at', 'bigint', 'expiresAt'],
      ['setup_parameters', 'jsonb', 'setupParameters'],
      ['required_input_parameters', 'jsonb', 'requiredInputParameters'],
      ['received_input', 'jsonb', 'receivedInput'],
    ],
    onConflict: '',
  },
  ledgerEntry: {
    name: 'ledger_entries',
    columns: [
      ['id', 'bigint', 'id'],
      ['user_id', 'bigint', 'userId'],
      ['currency', 'text', 'currency'],
      ['amount', 'numeric', 'amount'],
      ['balance', 'numeric', 'balance'],
      ['source_action', 'text', 'sourceAction'],
      ['source_object_type', 'text', 'sourceObjectType'],
      ['source_object_id', 'bigint', 'sourceObjectId'],
      ['created_at', 'bigint', 'createdAt'],
      ['currency_place', 'bigint', 'currencyPlace'],
    ],
    onConflict: '',
  },
  withdrawal: {
    name: 'withdrawals',
    columns: [
      ['id', 'bigint', 'id'],
      ['user_id', 'bigint', 'userId'],
      ['kind', 'text', 'kind'],
      ['currency', 'text', 'currency'],
      ['amount', 'numeric', 'amount'],
      ['fee', 'numeric', 'fee'],
      ['state', 'text', 'state'],
      ['address', 'text', 'address'],
      ['network', 'text', 'network'],
      ['payment_id', 'text', 'paymentId'],
      ['memo_type', 'text', 'memoType'],
      ['memo_value', 'text', 'memoValue'],
      ['transaction_hash', 'text', 'transactionHash'],
      ['bank_account_id', 'bigint', 'bankAccountId'],
      ['created_at', 'bigint', 'createdAt'],
      ['updated_at', 'bigint', 'updatedAt'],
    ],
    onConflict: '',
  },
  deposit: {
    name: 'deposits',
    columns: [
      ['id', 'bigint', 'id'],
      ['user_id', 'bigint', 'userId'],
      ['currency', 'text', 'currency'],
      ['amount', 'numeric', 'amount'],
      ['state', 'text', 'state'],
      ['transaction_hash', 'text', 'transactionHash'],
      ['created_at', 'bigint', 'createdAt'],
      ['updated_at', 'bigint', 'updatedAt'],
    ],
    onConflict: '',
  },
  loanBid: {
    name: 'loan_bids',
    columns: [
      ['id', 'bigint', 'id'],
      ['user_id', 'bigint', 'userId'],
      ['currency', 'text', 'currency'],
      ['rate', 'numeric', 'rate'],
      ['quantity', 'numeric', 'quantity'],
      ['lent', 'numeric', 'lent'],
      ['status', 'text', 'status'],
      ['created_at', 'bigint', 'createdAt'],
      ['updated_at', 'bigint', 'updatedAt'],
    ],
    onConflict: '',
  },
  leverageSetting: {
    name: 'trading_accounts',
    columns: [
      ['id', 'bigint', 'tradingAccountId'],
      ['user_id', 'bigint', 'userId'],
      ['product_id', 'bigint', 'productId'],
      ['leverage_level', 'integer', 'leverageLevel'],
    ],
    onConflict: '',
  },
  user: {
    name: 'users',
    columns: [
      ['id', 'bigint', 'id'],
      ['email', 'text', 'email'],
      ['first_name', 'text', 'firstName'],
      ['last_name', 'text', 'lastName'],
      ['country', 'text', 'country'],
      ['currency', 'text', 'currency'],
      ['language', 'text', 'language'],
      ['kyc_status', 'text', 'kycStatus'],
      ['app_vendor_id', 'bigint', 'appVendorId'],
      ['affiliate_code', 'text', 'affiliateCode'],
      ['email_confirmed_at_s', 'bigint', 'emailConfirmedAtS'],
    ],
    onConflict: '',
  },
  apiToken: {
    name: 'api_tokens',
    columns: [
      ['id', 'text', 'id'],
      ['user_id', 'bigint', 'userId'],
      ['secret', 'text', 'secret'],
    ],
    onConflict: '',
  },
  product: {
    name: 'products',
    columns: [
      ['id', 'bigint', 'id'],
      ['product_type', 'text', 'productType'],
      ['code', 'text', 'code'],
      ['base_currency', 'text', 'baseCurrency'],
      ['quoted_currency', 'text', 'quotedCurrency'],
      ['taker_fee', 'numeric', 'takerFee'],
      ['maker_fee', 'numeric', 'makerFee'],
      ['tick_size', 'numeric', 'tickSize'],
      ['disabled', 'boolean', 'disabled'],
      ['margin_enabled', 'boolean', 'marginEnabled'],
      ['cfd_enabled', 'boolean', 'cfdEnabled'],
      ['perpetual_enabled', 'boolean', 'perpetualEnabled'],
      ['perpetual', 'boolean', 'perpetual'],
    ],
    onConflict: '',
  },
  partnerApplication: {
    name: 'partner_applications',
    columns: [
      ['id', 'bigint', 'id'],
      ['user_id', 'bigint', 'userId'],
      ['public_api_key', 'text', 'publicApiKey'],
      ['name', 'text', 'name'],
    ],
    onConflict: '',
  },
  loan: {
    name: 'loans',
    columns: [
      ['id', 'bigint', 'id'],
      ['position_id', 'bigint', 'positionId'],
      ['bid_id', 'bigint', 'bidId'],
      ['lender_id', 'bigint', 'lenderId'],
      ['borrower_id', 'bigint', 'borrowerId'],
      ['currency', 'text', 'currency'],
      ['lender_place', 'bigint', 'lenderPlace'],
      ['borrower_place', 'bigint', 'borrowerPlace'],
      ['rate', 'numeric', 'rate'],
      ['quantity', 'numeric', 'quantity'],
      ['repaid', 'numeric', 'repaid'],
      ['interest', 'numeric', 'interest'],
      ['charged_until', 'bigint', 'chargedUntil'],
      ['fund_reloaned', 'boolean', 'fundReloaned'],
      ['status', 'text', 'status'],
      ['created_at', 'bigint', 'createdAt'],
      ['updated_at', 'bigint', 'updatedAt'],
    ],
    onConflict: '',
  },
};
// A record a call changes is written whole again; history is only ever inserted, and the
// store refuses a row of it written twice rather than take the second for the first.
for (const [kind, table] of Object.entries(recordTables)) {
  if (table.onConflict !== '' || (historyKinds as readonly string[]).includes(kind)) continue;
  table.onConflict = updateAllButId(table as Table<never>);
}

// Quick Exchange's reference data: the migrations write it, a start reads it, no call changes it.

const assets: Table<Asset> = {
  name: 'qe_assets',
  columns: [
    ['code', 'text', 'code'],
    ['kind', 'text', 'kind'],
    ['precision', 'integer', 'precision'],
    ['deposit_address', 'text', 'depositAddress'],
  ],
  onConflict: '',
};

const prices: Table<Price> = {
  name: 'qe_prices',
  columns: [
    ['base', 'text', 'base'],
    ['quote', 'text', 'quote'],
    ['price', 'numeric', 'price'],
  ],
  onConflict: '',
};

const tables = {
  orders,
  accounts,
  fills,
  positions,
  ...recordTables,
  assets,
  prices,
} as Record<
  'orders' | 'accounts' | 'fills' | 'positions' | RecordKind | 'assets' | 'prices',
  Table<never>
>;

type Stored = string | number | boolean | null;

/** A value of COPY's text format as the row readers expect it: numeric stays a string. */
function fromCopy(field: string, type: ColumnType): Stored | object {
  if (field === '\\N') return null;
  if (type === 'bigint' || type === 'integer') return Number(field);
  if (type === 'boolean') return field === 't';
  if (type === 'numeric' || type === 'digits') return field;
  const text = field.includes('\\')
    ? field.replace(/\\(.)/g, (_, char: string) => copyEscapes[char] ?? char)
    : ownCopy(field);
  return type === 'jsonb' ? (JSON.parse(text) as object) : text;
}
/**
 * The text of a field as a string of its own. V8 cuts a long substring as a view into the
 * string it came from, so a stored id would keep its line of COPY text alive for as long as
 * the row is held: about 100 bytes more for every order in memory.
 */
const ownCopy = (field: string) => (field.length < 13 ? field : `${field} `.slice(0, -1));

const copyEscapes: Record<string, string> = {
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

type Read = Stored | object;

const rowsSelect = (table: StoredTable, orderBy: string | null, filter?: RowFilter) =>
  `${selectFrom(table)}${filter ? ` WHERE ${filter.where}` : ''}${
    orderBy === null ? '' : ` ORDER BY ${orderBy}`
  }`;

/**
 * Which rows to read: with `params`, a query's (for a few rows picked by key); without, a
 * condition of the reader's own constants, read through COPY, as whole tables are: PGlite
 * decodes a query's rows one value at a time, several times slower for the thousands a start
 * reads.
 */
export interface RowFilter {
  where: string;
  params?: unknown[];
}

/** `value` as an SQL string literal, for a condition built of the sandbox's own constants. */
export const textLiteral = (value: string): string =>
  value.includes("'") ? `'${value.replaceAll("'", "''")}'` : `'${value}'`;

/**
 * The columns of `table` as a select lists them, numeric ones as text to keep every digit;
 * with `alias`, of that alias of the table in a query that names it so.
 */
export function columnsOf(table: keyof typeof tables, alias?: string): string {
  const of = alias === undefined ? '' : `${alias}.`;
  return (tables[table] as Table<never>).columns
    .map(([column, type]) =>
      sqlType(type) === 'numeric' ? `${of}${column}::text AS ${column}` : `${of}${column}`,
    )
    .join(', ');
}

/** A stored table, by the record it holds. */
export type StoredTable = keyof typeof tables;

/** The name of `table` in the store. */
export const tableName = (table: StoredTable): string => (tables[table] as Table<never>).name;

export const selectFrom = (table: StoredTable): string =>
  `SELECT ${columnsOf(table)} FROM ${tableName(table)}`;

/** The record each table is read back into: an account's count of entries is kept elsewhere. */
type TableRecords = Records & {
  assets: Asset;
  prices: Price;
  orders: Order;
  fills: Fill;
  positions: Position;
  accounts: Omit<Account, 'entries'>;
};

/** Reads a stored decimal: `sharedDecimals` (`shared-decimals.ts`) shares equal ones. */
type DecimalReader = (stored: unknown) => D;

const newDecimal: DecimalReader = (stored) => new D(String(stored));

/** The expression that reads stored `value` into its field, by the column's type. */
const readExpression: Record<ColumnType, (value: string) => string> = {
  bigint: (value) => `${value} == null ? null : Number(${value})`,
  integer: (value) => `${value} == null ? null : Number(${value})`,
  numeric: (value) => `${value} == null ? null : decimal(${value})`,
  digits: (value) => `${value} == null ? null : String(${value})`,
  text: (value) => `${value} ?? null`,
  uuid: (value) => `${value} ?? null`,
  boolean: (value) => `${value} ?? null`,
  jsonb: (value) => `${value} ?? null`,
};

/**
 * Reads a row of `table` (as `selectFrom` selects it) back into the record it was written
 * from: each column into its field by its type, and what columns written from a function
 * hold by the table's `readBack`. The reader is compiled from the column list into one
 * object literal: a start reads every open order through it, and a record built field by
 * field under names known only at run time took five times as long.
 */
export function recordReader<Name extends keyof TableRecords>(
  table: Name,
  decimal: DecimalReader = newDecimal,
): (row: Record<string, unknown>) => TableRecords[Name] {
  return compiledRecordReader(table, decimal, 'row');
}

/**
 * Reads a line of `table`'s COPY text, cut at its tabs, straight into its record, as
 * `recordReader` reads a row: a start reads every open order and position this way, and a
 * row keyed by column between the two was as much garbage again as the records themselves.
 */
function copyRecordReader<Name extends keyof TableRecords>(
  table: Name,
  decimal: DecimalReader = newDecimal,
): (fields: string[]) => TableRecords[Name] {
  return compiledRecordReader(table, decimal, 'copy');
}

/** Where a compiled reader finds a column's stored value: a row keyed by column, or COPY's fields. */
type RowForm = 'row' | 'copy';

function compiledRecordReader<Name extends keyof TableRecords>(
  table: Name,
  decimal: DecimalReader,
  form: RowForm,
  // biome-ignore lint/suspicious/noExplicitAny: a row or a line's fields, by `form`
): (row: any) => TableRecords[Name] {
  const { name, columns, readBack } = tables[table] as Table<never>;
  const at = new Map(columns.map(([column, type], n) => [column, { n, type }]));
  const stored =
    form === 'row'
      ? (row: Record<string, unknown>, column: string) => row[column]
      : (fields: string[], column: string) => {
          const found = at.get(column);
          return found ? fromCopy(fields[found.n] ?? '\\N', found.type) : null;
        };
  // What `readBack` asks for, a column at a time, by the same expressions: compiled only for
  // a table that has one.
  const readColumn = new Map(
    (readBack ? columns : []).map(([column, type]) => [
      column,
      new Function('decimal', 'value', `return ${readExpression[type]('value')};`) as (
        decimal: DecimalReader,
        value: unknown,
      ) => unknown,
    ]),
  );
  // biome-ignore lint/suspicious/noExplicitAny: a row or a line's fields, by `form`
  const read = (row: any, column: string) =>
    readColumn.get(column)?.(decimal, stored(row, column)) ?? null;
  // Every name here is one of the column list's own, never a caller's. The fields come in the
  // order of the columns, those read back where their first column stands, so a record read
  // has the shape of one the rules made.
  const values: string[] = [];
  const literal: string[] = [];
  let backFields: string[] | undefined;
  for (const [n, [column, type, source]] of columns.entries()) {
    if (typeof source === 'string') {
      const value =
        form === 'row'
          ? `row[${JSON.stringify(column)}]`
          : `fromCopy(row[${n}] ?? missing, ${JSON.stringify(type)})`;
      values.push(`const v${n} = ${value};`);
      literal.push(`${JSON.stringify(source)}: ${readExpression[type](`v${n}`)}`);
    } else if (!readBack) {
      throw new Error(`${name}.${column} has no way back to its record`);
    } else if (!backFields) {
      backFields = Object.keys(readBack(() => null));
      literal.push(
        ...backFields.map((field) => `${JSON.stringify(field)}: back[${JSON.stringify(field)}]`),
      );
    }
  }
  const back = backFields ? 'const back = readBack((column) => read(row, column));' : '';
  return new Function(
    'decimal',
    'readBack',
    'read',
    'fromCopy',
    'missing',
    `return (row) => { ${values.join(' ')} ${back} return { ${literal.join(', ')} }; };`,
  )(decimal, readBack, read, fromCopy, '\\N');
}

/**
 * Every row of `table` (or those `filter` picks) as memory holds the record, in `orderBy`
 * order (`null`: the store's own, where no reader needs one, saving the sort).
 */
export async function readRecords<Name extends keyof TableRecords>(
  db: Queryable,
  table: Name,
  orderBy: string | null = 'id',
  options: { filter?: RowFilter; decimal?: DecimalReader } = {},
): Promise<TableRecords[Name][]> {
  const { filter, decimal } = options;
  const select = rowsSelect(table, orderBy, filter);
  // A few rows picked by key: a query with parameters, which COPY does not take.
  if (filter?.params) {
    const { rows } = await db.query<Record<string, Read>>(select, filter.params);
    return rows.map(recordReader(table, decimal));
  }
  return readSelectRecords(db, table, select, decimal);
}

/**
 * The rows of `table` that `select` picks (its columns as `selectFrom` lists them), as records.
 * Read with COPY where the store has it: a query's rows cost PGlite several times what the
 * same rows as COPY text do, which a store of a few hundred thousand rows feels at every start.
 */
export async function readSelectRecords<Name extends keyof TableRecords>(
  db: Queryable,
  table: Name,
  select: string,
  decimal?: DecimalReader,
): Promise<TableRecords[Name][]> {
  if (!db.copyOut) {
    return (await db.query<Record<string, Read>>(select)).rows.map(recordReader(table, decimal));
  }
  const recordOf = copyRecordReader(table, decimal);
  const text = await db.copyOut(select);
  const records: TableRecords[Name][] = [];
  // Each line's fields cut from the text where they stand, into one array the reader is done
  // with before the next line: split into lines, then each line into an array of its own,
  // cutting took longer than reading the records, and left as much garbage.
  const last = (tables[table] as Table<never>).columns.length - 1;
  const fields: string[] = new Array(last + 1);
  for (let at = 0; at < text.length; ) {
    for (let n = 0; n <= last; n++) {
      const found = text.indexOf(n === last ? '\n' : '\t', at);
      // COPY ends every line with its newline; text cut short ends the line where it stops.
      const end = found === -1 ? text.length : found;
      fields[n] = text.slice(at, end);
      at = end + 1;
    }
    records.push(recordOf(fields));
  }
  return records;
}

/** Every batch is the sandbox's own: the store's triggers count and place another writer's. */
const writerSql = `SET LOCAL ${writerSetting} = 'sandbox'`;

const statementName = (table: Table<never>) => `exchange_write_${table.name}`;

/**
 * Each table's write as a prepared statement taking one array per column: parsed and
 * planned once per connection, where a statement of literals costs that at every batch.
 */
export const preparedWrites: Record<string, string> = Object.fromEntries(
  [
    orders,
    accounts,
    fills,
    ownFills,
    positions,
    nonces,
    ...Object.values(recordTables),
    ...countTables,
  ].map((table) => {
    const t = table as Table<never>;
    const parameters = t.columns.map(([, type]) => `${sqlType(type)}[]`).join(', ');
    const columns = t.columns.map(([column]) => column).join(', ');
    const arrays = t.columns.map((_, n) => `$${n + 1}`).join(', ');
    return [
      statementName(t),
      `PREPARE ${statementName(t)}(${parameters}) AS
       INSERT INTO ${t.name} (${columns}) SELECT * FROM unnest(${arrays}) ${t.onConflict}`,
    ];
  }),
);

/** A Postgres array literal element; NUL cannot be stored, and calls refuse it earlier. */
function element(value: Value): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`Not an integer: ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return String(value);
  const text = typeof value === 'string' ? value : value.toFixed();
  if (text.includes('\u0000')) throw new Error('NUL in a stored string');
  // Tested before replaced: a batch has thousands of strings, nearly none with either.
  return needsEscape.test(text) ? `"${text.replace(escaped, '\\$&')}"` : `"${text}"`;
}

const needsEscape = /["\\]/;
const escaped = /["\\]/g;

/** A decimal's digits need no quotes in an array literal. */
function decimalElement(value: Value): string {
  return value !== null && typeof value === 'object' ? value.toFixed() : element(value);
}

/**
 * The arguments of `table`'s prepared write for `rows`: one array literal per column. Compiled
 * from the column list into one pass over the rows, as `recordReader` is: a closure per column
 * reading its field by a key it held went through every shape of row, and a margin fill's
 * batch has a thousand cells.
 */
function argumentsWriter<Row>(table: Table<Row>): (rows: Row[]) => string {
  const cells = table.columns.map(([, type, source], n) => {
    const elementOf = type === 'numeric' ? 'decimal' : 'element';
    // Every field name here is one of the column list's own, never a caller's.
    const value =
      typeof source === 'function'
        ? `sources[${n}](row)`
        : type === 'jsonb'
          ? `json(row[${JSON.stringify(source)}])`
          : `row[${JSON.stringify(source)}]`;
    return `c${n} += comma + ${elementOf}(${value});`;
  });
  const columns = table.columns.map((_, n) => `c${n}`);
  const body = `return (rows) => {
    let ${columns.map((c) => `${c} = '{'`).join(', ')};
    for (let n = 0; n < rows.length; n++) {
      const row = rows[n];
      const comma = n === 0 ? '' : ',';
      ${cells.join('\n      ')}
    }
    return ${columns.map((c) => `literal(${c} + '}')`).join(" + ', ' + ")};
  };`;
  const sources = table.columns.map(([, , source]) => source);
  return new Function('sources', 'element', 'decimal', 'json', 'literal', body)(
    sources,
    element,
    decimalElement,
    json,
    textLiteral,
  ) as (rows: Row[]) => string;
}

const argumentsWriters = new Map<Table<never>, (rows: never[]) => string>();

function write<Row>(table: Table<Row>, rows: Row[]): string {
  const key = table as Table<never>;
  const writer = getOrCreate(argumentsWriters, key, () => argumentsWriter(key));
  return `EXECUTE ${statementName(key)}(${writer(rows as never[])})`;
}

/**
 * The rows of one batch as one statement per table, children after the rows they name, for
 * one transaction, and the statements of `preparedWrites` they run: only those, so a store
 * seeded before a table was added (as tests of its migration do) takes the writes it has.
 */
export function changesSql(changes: Changes): { sql: string; prepared: Record<string, string> } {
  const statements: string[] = [writerSql];
  const byKind = new Map<RecordKind, object[]>();
  for (const { kind, row } of changes.records.values()) {
    getOrCreate(byKind, kind, (): object[] => []).push(row);
  }
  const writeRecords = (kinds: readonly RecordKind[]) => {
    for (const kind of kinds) {
      const rows = byKind.get(kind);
      if (rows) statements.push(write(recordTables[kind] as Table<never>, rows as never[]));
    }
  };
  writeRecords(ownerKindOrder);
  if (changes.orders.size > 0) statements.push(write(orders, [...changes.orders.values()]));
  if (changes.accounts.size > 0) statements.push(write(accounts, [...changes.accounts.values()]));
  if (changes.fills.length > 0) statements.push(write(fills, changes.fills));
  if (changes.ownFills.length > 0) statements.push(write(ownFills, changes.ownFills));
  // After the fills: a position's id is the fill that opened it.
  if (changes.positions.size > 0) {
    statements.push(write(positions, [...changes.positions.values()]));
  }
  writeRecords(recordKindOrder);
  for (const [table, rows] of countsMoved(changes)) statements.push(write(table, rows as never[]));
  if (changes.nonces.size > 0) {
    statements.push(
      write(
        nonces,
        [...changes.nonces].map(([scope, value]) => ({ scope, value })),
      ),
    );
  }
  const prepared: Record<string, string> = {};
  for (const statement of statements) {
    const name = /^EXECUTE (\w+)\(/.exec(statement)?.[1];
    if (name !== undefined) prepared[name] = preparedWrites[name] as string;
  }
  return { sql: statements.join(';\n'), prepared };
}
