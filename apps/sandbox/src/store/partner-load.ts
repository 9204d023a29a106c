import { D } from '../state/exchange-state.js';
import { type Asset, type Intent, PartnerState, type Transaction } from '../state/partner-state.js';
import type { Queryable } from './queryable.js';
import { readRows } from './sandbox-rows.js';

type Row = Record<string, unknown>;

const text = (value: unknown) => (value === null ? null : String(value));
const time = (value: unknown) => (value === null ? null : Number(value));

/**
 * Quick Exchange as the store holds it, read into a new state, but for its intents: they are
 * the most numerous rows, and a call names the one it needs, which is read then (readIntents).
 */
export async function loadPartnerState(db: Queryable): Promise<PartnerState> {
  const state = new PartnerState();
  const query = async (sql: string) => (await db.query<Row>(sql)).rows;
  for (const row of await query('SELECT * FROM partner_applications ORDER BY id')) {
    state.addApplication({
      id: Number(row.id),
      userId: Number(row.user_id),
      publicApiKey: String(row.public_api_key),
      name: String(row.name),
    });
  }
  for (const row of await query('SELECT * FROM qe_assets')) {
    state.assets.set(String(row.code), {
      code: String(row.code),
      kind: row.kind as Asset['kind'],
      precision: Number(row.precision),
      depositAddress: text(row.deposit_address),
    });
  }
  for (const row of await query('SELECT base, quote, price::text AS price FROM qe_prices')) {
    state.prices.push({
      base: String(row.base),
      quote: String(row.quote),
      price: new D(String(row.price)),
    });
  }
  for (const row of await readRows(db, 'session', null)) {
    state.addSession({
      id: String(row.id),
      partnerId: Number(row.partner_id),
      secret: String(row.secret),
      suggestedCountry: String(row.suggested_country),
      defaultTransaction: row.default_transaction as never,
      widgetConfiguration: (row.widget_configuration ?? null) as never,
      userLocale: text(row.user_locale),
      ancestorOrigins: text(row.ancestor_origins),
      createdAt: Number(row.created_at),
    });
  }
  for (const row of await readRows(db, 'partnerClock', null)) {
    state.addClock({
      partnerId: Number(row.partner_id),
      lastCreatedAt: Number(row.last_created_at),
    });
  }
  for (const row of await readRows(db, 'transaction', 'created_at')) {
    state.addTransaction({
      id: String(row.id),
      partnerId: Number(row.partner_id),
      sessionId: String(row.session_id),
      intentId: text(row.intent_id),
      clientRef: text(row.client_ref),
      apiKey: text(row.api_key),
      symbol: String(row.symbol),
      side: row.side as Transaction['side'],
      fundingCurrency: String(row.funding_currency),
      fundingQuantity: String(row.funding_quantity),
      payoutCurrency: String(row.payout_currency),
      payoutQuantity: String(row.payout_quantity),
      quoteId: text(row.quote_id),
      quotedAt: Number(row.quoted_at),
      status: row.status as Transaction['status'],
      partnerOrderId: text(row.partner_order_id),
      partnerRef: text(row.partner_ref),
      partnerTags: (row.partner_tags ?? null) as string[] | null,
      createdAt: Number(row.created_at),
      pendingSince: time(row.pending_since),
    });
  }
  for (const row of await readRows(db, 'instruction', null)) {
    state.addInstruction({
      id: String(row.id),
      transactionId: String(row.transaction_id),
      direction: row.direction as never,
      method: row.method as never,
      currency: String(row.currency),
      quantity: String(row.quantity),
      status: row.status as never,
      expiresAt: time(row.expires_at),
      setupParameters: row.setup_parameters as never,
      requiredInputParameters: row.required_input_parameters as never,
      receivedInput: row.received_input as never,
    });
  }
  return state;
}

const intentOf = (row: Row): Intent => ({
  id: String(row.id),
  partnerId: Number(row.partner_id),
  strategy: row.strategy as Intent['strategy'],
  payoutMethod: row.payout_method as Intent['payoutMethod'],
  payoutCurrency: String(row.payout_currency),
  payoutQuantity: text(row.payout_quantity),
  fundingMethod: row.funding_method as Intent['fundingMethod'],
  fundingCurrency: text(row.funding_currency),
  fundingQuantity: text(row.funding_quantity),
  partnerOrderId: text(row.partner_order_id),
  partnerRef: text(row.partner_ref),
  partnerTags: (row.partner_tags ?? null) as string[] | null,
  expiresAt: time(row.expires_at),
  createdAt: Number(row.created_at),
  consumedAt: time(row.consumed_at),
});

/** The intents among `ids` (lower-case UUIDs) that the store holds. */
export async function readIntents(db: Queryable, ids: readonly string[]): Promise<Intent[]> {
  const rows = await readRows(db, 'intent', null, {
    where: 'id = ANY($1::uuid[])',
    params: [ids],
  });
  return rows.map(intentOf);
}

/**
 * The id of every intent the store holds. One string, split here: PGlite hands out a single
 * value far faster than a row object per intent.
 */
export async function readIntentIds(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ ids: string | null }>(
    "SELECT string_agg(id::text, ',') AS ids FROM qe_intents",
  );
  return rows[0]?.ids?.split(',') ?? [];
}
