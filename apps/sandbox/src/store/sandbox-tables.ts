import type { Asset, Price } from '../state/partner-state.js';
import type { Account, D, Fill, Order, OwnFill, Position, TrailingStop } from '../state/records.js';
import { historyKinds, type RecordKind, type Records } from '../state/sandbox-state.js';
import type { ColumnType, Table } from './table.js';

// Every table the sandbox writes and reads, each as one column list: the batch writes
// (`batch-writes.ts`) and the record readers (`record-readers.ts`) are both made from it, so
// a column added here is written and read back alike.

/** The last nonce spent in one scope ("token:<id>", "session:<id>"). */
export interface NonceRow {
  scope: string;
  value: bigint;
}

/** `greatest` keeps a stored nonce rising whatever order writes land in. */
const nonceConflict =
  'ON CONFLICT (scope) DO UPDATE SET last_nonce = greatest(nonces.last_nonce, EXCLUDED.last_nonce)';

export const sqlType = (type: ColumnType) => (type === 'digits' ? 'numeric' : type);

export const orders: Table<Order> = {
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

export const accounts: Table<Account> = {
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

export const fills: Table<Fill> = {
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
    ['taker_pnl', 'numeric', 'takerPnl'],
    ['maker_pnl', 'numeric', 'makerPnl'],
  ],
  onConflict: '',
};

/** Each fill's sides as their users see them, placed by the sandbox (migration 0022). */
export const ownFills: Table<OwnFill> = {
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

export const positions: Table<Position> = {
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
    ['closed_cost', 'numeric', 'closedCost'],
    ['margin', 'numeric', 'margin'],
    ['realized_pnl', 'numeric', 'realizedPnl'],
    ['close_fee', 'numeric', 'closeFee'],
    ['status', 'text', 'status'],
    ['user_place', 'bigint', 'place'],
    ['order_id', 'bigint', 'orderId'],
    ['created_at', 'bigint', 'createdAt'],
    ['updated_at', 'bigint', 'updatedAt'],
  ],
  onConflict: '',
};
positions.onConflict = updateAllButId(positions as Table<never>);

export const nonces: Table<NonceRow> = {
  name: 'nonces',
  columns: [
    ['scope', 'text', 'scope'],
    ['last_nonce', 'numeric', (n) => String(n.value)],
  ],
  onConflict: nonceConflict,
};

/** The table of each kind of record, written whole, a row as memory holds the record. */
export const recordTables: { [Name in RecordKind]: Table<Records[Name]> } = {
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
  clockOffset: {
    name: 'sandbox_clock',
    columns: [
      ['id', 'integer', 'id'],
      ['offset_ms', 'bigint', 'offsetMs'],
    ],
    onConflict: '',
  },
  markPrice: {
    name: 'sandbox_mark_prices',
    columns: [
      ['product_id', 'bigint', 'productId'],
      ['price', 'numeric', 'price'],
      ['fills', 'bigint', 'fills'],
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

export const tables = {
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
