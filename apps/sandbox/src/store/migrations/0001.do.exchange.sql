-- The exchange: users and their API tokens, products and currencies, accounts, orders and the
-- fills between them, the loan book, OAuth requests, and the nonces that keep replays out.
-- Amounts are numeric (exact); times are Unix milliseconds in bigint unless named _s.

CREATE TABLE users (
  id bigint PRIMARY KEY,
  email text NOT NULL,
  first_name text NOT NULL,
  last_name text NOT NULL,
  country text NOT NULL,
  currency text NOT NULL,
  language text NOT NULL,
  kyc_status text NOT NULL,
  app_vendor_id bigint NOT NULL,
  affiliate_code text NOT NULL,
  email_confirmed_at_s bigint NOT NULL
);

CREATE TABLE api_tokens (
  id text PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  -- Kept as issued: verifying an HS256 signature needs the secret itself.
  secret text NOT NULL
);

-- The last nonce accepted per scope ("token:<id>", "session:<id>"); a nonce is accepted only
-- when it is larger, in the same transaction as the call it authenticates.
CREATE TABLE nonces (
  scope text PRIMARY KEY,
  last_nonce numeric NOT NULL
);

CREATE TABLE partner_applications (
  id bigserial PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  public_api_key text NOT NULL UNIQUE,
  name text NOT NULL
);

CREATE TABLE currencies (
  code text PRIMARY KEY,
  name text NOT NULL,
  currency_type text NOT NULL CHECK (currency_type IN ('crypto', 'fiat')),
  symbol text NOT NULL,
  depositable boolean NOT NULL,
  withdrawable boolean NOT NULL,
  assets_precision integer NOT NULL,
  minimum_withdrawal numeric NOT NULL,
  withdrawal_fee numeric NOT NULL,
  minimum_order_quantity numeric NOT NULL,
  exchange_rate numeric NOT NULL
);

CREATE TABLE products (
  id bigint PRIMARY KEY,
  product_type text NOT NULL,
  code text NOT NULL,
  base_currency text NOT NULL REFERENCES currencies (code),
  quoted_currency text NOT NULL REFERENCES currencies (code),
  taker_fee numeric NOT NULL,
  maker_fee numeric NOT NULL,
  tick_size numeric NOT NULL,
  disabled boolean NOT NULL,
  margin_enabled boolean NOT NULL,
  cfd_enabled boolean NOT NULL,
  perpetual_enabled boolean NOT NULL,
  -- Perpetual products are listed by GET /products?perpetual=1 only.
  perpetual boolean NOT NULL
);

CREATE TABLE accounts (
  id bigserial PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  currency text NOT NULL REFERENCES currencies (code),
  balance numeric NOT NULL DEFAULT 0,
  reserved_balance numeric NOT NULL DEFAULT 0,
  address text NOT NULL,
  UNIQUE (user_id, currency),
  CHECK (reserved_balance >= 0 AND balance >= reserved_balance)
);

CREATE SEQUENCE orders_id_seq START 2157474;

CREATE TABLE orders (
  id bigint PRIMARY KEY DEFAULT nextval('orders_id_seq'),
  user_id bigint NOT NULL REFERENCES users (id),
  product_id bigint NOT NULL REFERENCES products (id),
  client_order_id text,
  order_type text NOT NULL,
  side text NOT NULL CHECK (side IN ('buy', 'sell')),
  trading_type text NOT NULL,
  quantity numeric NOT NULL CHECK (quantity > 0),
  filled_quantity numeric NOT NULL DEFAULT 0,
  price numeric NOT NULL,
  -- Sum of price * quantity over the fills, so average_price stays exact.
  filled_value numeric NOT NULL DEFAULT 0,
  status text NOT NULL CHECK (status IN ('live', 'partially_filled', 'filled', 'cancelled')),
  leverage_level integer NOT NULL,
  funding_currency text NOT NULL,
  take_profit numeric,
  stop_loss numeric,
  -- A take profit or stop loss order on a position: triggered, not resting in the book.
  conditional boolean NOT NULL DEFAULT false,
  trade_id bigint,
  -- What the order holds of its owner's funds right now, and in which currency.
  reserved_amount numeric NOT NULL DEFAULT 0,
  reserved_currency text NOT NULL,
  -- Insertion order: time priority among orders at one price.
  sequence bigserial NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CHECK (filled_quantity >= 0 AND filled_quantity <= quantity),
  UNIQUE (user_id, client_order_id)
);

CREATE INDEX orders_book ON orders (product_id, side, price, sequence)
  WHERE status IN ('live', 'partially_filled') AND NOT conditional;
CREATE INDEX orders_by_user ON orders (user_id, created_at DESC, id DESC);

CREATE TABLE fills (
  id bigserial PRIMARY KEY,
  product_id bigint NOT NULL REFERENCES products (id),
  taker_order_id bigint NOT NULL REFERENCES orders (id),
  maker_order_id bigint NOT NULL REFERENCES orders (id),
  taker_side text NOT NULL,
  price numeric NOT NULL,
  quantity numeric NOT NULL,
  created_at bigint NOT NULL
);

CREATE INDEX fills_by_product ON fills (product_id, created_at DESC, id DESC);

CREATE TABLE loan_book_levels (
  currency text NOT NULL REFERENCES currencies (code),
  side text NOT NULL CHECK (side IN ('bid', 'ask')),
  rate numeric NOT NULL,
  amount numeric NOT NULL,
  PRIMARY KEY (currency, side, rate)
);

CREATE TABLE oauth_requests (
  public_id uuid PRIMARY KEY,
  private_id uuid NOT NULL UNIQUE,
  app_token_id text NOT NULL REFERENCES api_tokens (id),
  external_ref text,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  approved_by_user_id bigint REFERENCES users (id),
  approved_at bigint
);
