import type { Queryable } from './queryable.js';

export interface PositionHistory {
  /** How many closed positions to add, each with the one loan it repaid. */
  positions: number;
  /** Whose positions they are, and who lent to them; both users must exist. */
  userId: number;
  lenderId: number;
  /** Of which product, funded in `currency`; both must exist. */
  productId: number;
  currency: string;
  /** When the first was opened; each next one a millisecond later. */
  since: number;
}

/**
 * Adds `positions` margin longs of 0.01 at 1000 + n % 1000, each closed a millisecond after it
 * opened at 1 more, with the loan of half its notional it repaid: the trades a long run of
 * margin fills leaves behind, in one statement. Ids and places follow those in use.
 */
export async function addPositionHistory(db: Queryable, history: PositionHistory): Promise<void> {
  await db.query(
    `WITH last AS (SELECT coalesce(max(id), 0) AS id FROM positions),
       placed AS (SELECT coalesce(max(user_place), 0) AS place FROM positions WHERE user_id = $1),
       last_loan AS (SELECT coalesce(max(id), 0) AS id FROM loans),
       lender AS (SELECT last_loan_place($6, $3) AS place),
       borrower AS (SELECT last_loan_place($1, $3) AS place),
       added AS (
         INSERT INTO positions (id, user_id, product_id, trading_type, side, leverage_level,
           funding_currency, quantity, open_value, closed_quantity, closed_value, margin,
           realized_pnl, status, user_place, created_at, updated_at)
         SELECT last.id + n, $1, $2, 'margin', 'buy', 2, $3, 0.01, 0.01 * (1000 + n % 1000),
           0.01, 0.01 * (1001 + n % 1000), 0, 0.01, 'closed', placed.place + n,
           $4::bigint + n, $4::bigint + n + 1
         FROM generate_series(1, $5::int) AS n, last, placed
         RETURNING id, open_value, created_at, updated_at)
     INSERT INTO loans (id, position_id, bid_id, lender_id, borrower_id, currency,
       lender_place, borrower_place, rate, quantity, repaid, interest, charged_until,
       fund_reloaned, status, created_at, updated_at)
     SELECT last_loan.id + added.id - last.id, added.id, NULL, $6, $1, $3,
       lender.place + added.id - last.id, borrower.place + added.id - last.id, 0.0005,
       added.open_value / 2, added.open_value / 2, 0, added.updated_at, true, 'closed',
       added.created_at, added.updated_at
     FROM added, last, last_loan, lender, borrower`,
    [
      history.userId,
      history.productId,
      history.currency,
      history.since,
      history.positions,
      history.lenderId,
    ],
  );
}

/**
 * Adds one closed position of `userId` after every id in use, as another writer would: without
 * its place, which the store's trigger gives it (migration 0027).
 */
export async function addUnplacedPosition(db: Queryable, userId: number): Promise<void> {
  await db.query(
    `INSERT INTO positions (id, user_id, product_id, trading_type, side, leverage_level,
       funding_currency, quantity, open_value, closed_quantity, closed_value, margin,
       realized_pnl, status, created_at, updated_at)
     SELECT max(id) + 1, $1, 1, 'margin', 'sell', 2, 'JPY', 1, 100, 1, 90, 0, 10, 'closed', 0, 0
     FROM positions`,
    [userId],
  );
}

/**
 * Adds repaid loans of `currency`, each from its lender to its borrower, after every id in use
 * and in one statement, as another writer would: without their places, which the store's
 * trigger gives them (migration 0028).
 */
export async function addUnplacedLoans(
  db: Queryable,
  currency: string,
  parties: { lenderId: number; borrowerId: number }[],
): Promise<void> {
  await db.query(
    `INSERT INTO loans (id, position_id, bid_id, lender_id, borrower_id, currency, rate,
       quantity, repaid, interest, charged_until, fund_reloaned, status, created_at, updated_at)
     SELECT last.id + n, NULL, NULL, lender, borrower, $3, 0.0005, 1, 1, 0, 0, true, 'closed',
       0, 0
     FROM unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS party (lender, borrower, n),
       (SELECT coalesce(max(id), 0) AS id FROM loans) AS last`,
    [parties.map((party) => party.lenderId), parties.map((party) => party.borrowerId), currency],
  );
}
