-- The leverage level a user set on a trading account. A trading account's id is derived from
-- its user and product (exchange/trading-accounts.ts), so only a setting needs a row.
CREATE TABLE trading_accounts (
  id bigint PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  product_id bigint NOT NULL REFERENCES products (id),
  leverage_level integer NOT NULL
);
CREATE INDEX trading_accounts_by_user ON trading_accounts (user_id, id);
