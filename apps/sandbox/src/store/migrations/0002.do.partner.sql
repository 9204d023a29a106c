-- Quick Exchange partner domain: sessions, intents, transactions and their settlement
-- instructions, plus the reference data (assets, prices) the snapshot quotes read.
-- Times are Unix milliseconds (bigint); quantities and prices are numeric, never floats.

-- Partner applications (partner_applications, with their public_api_key) come from 0001.

-- Assets that can be settled, and their prices: the exchange's products carry no price, so
-- Quick Exchange quotes read these. deposit_address is the address users pay into for blockchain
-- funding (null for fiat, which cannot be settled on chain). precision bounds computed quantities.
CREATE TABLE qe_assets (
  code text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('crypto', 'fiat')),
  precision integer NOT NULL CHECK (precision BETWEEN 0 AND 18),
  deposit_address text,
  CHECK ((kind = 'crypto') = (deposit_address IS NOT NULL))
);

-- Price of one unit of base in quote. A pair is stored in one orientation only; the other one
-- is derived by division when a quote is taken.
CREATE TABLE qe_prices (
  base text NOT NULL REFERENCES qe_assets (code),
  quote text NOT NULL REFERENCES qe_assets (code),
  price numeric NOT NULL CHECK (price > 0),
  PRIMARY KEY (base, quote),
  CHECK (base <> quote)
);

INSERT INTO qe_assets (code, kind, precision, deposit_address) VALUES
  ('BTC', 'crypto', 8, 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh'),
  ('ETH', 'crypto', 8, '0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c'),
  ('USDC', 'crypto', 2, '0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c'),
  ('XRP', 'crypto', 6, 'rEb8TK3gBgk5auZkwc6sHnwrGVJH8DuaLh'),
  ('USD', 'fiat', 2, NULL),
  ('EUR', 'fiat', 2, NULL),
  ('SGD', 'fiat', 2, NULL),
  ('JPY', 'fiat', 0, NULL);

-- USDC pairs reproduce the description's example (0.015 BTC for 1012.50 USDC); JPY pairs sit
-- at the middle of the exchange's seeded order book.
INSERT INTO qe_prices (base, quote, price) VALUES
  ('BTC', 'USDC', 67500),
  ('BTC', 'USD', 67450),
  ('BTC', 'EUR', 62000),
  ('BTC', 'SGD', 91000),
  ('BTC', 'JPY', 9500000),
  ('ETH', 'USDC', 3025),
  ('ETH', 'USD', 3020),
  ('ETH', 'EUR', 2780),
  ('ETH', 'SGD', 4080),
  ('ETH', 'JPY', 450000),
  ('ETH', 'BTC', 0.0474),
  ('XRP', 'USDC', 0.53),
  ('XRP', 'USD', 0.53),
  ('XRP', 'JPY', 80),
  ('USDC', 'USD', 1),
  ('USDC', 'EUR', 0.92),
  ('USDC', 'SGD', 1.35),
  ('USDC', 'JPY', 150);

CREATE TABLE qe_sessions (
  id uuid PRIMARY KEY,
  partner_id bigint NOT NULL REFERENCES partner_applications (id),
  -- Kept because the authentication layer verifies session Bearer JWTs (HS256) with it.
  secret text NOT NULL,
  suggested_country text NOT NULL,
  default_transaction jsonb NOT NULL,
  widget_configuration jsonb,
  user_locale text,
  ancestor_origins text,
  created_at bigint NOT NULL
);

CREATE TABLE qe_intents (
  id uuid PRIMARY KEY,
  partner_id bigint NOT NULL REFERENCES partner_applications (id),
  strategy text NOT NULL CHECK (strategy IN ('ONE_TO_ONE_ATTEMPTED', 'ONE_TO_MANY')),
  payout_method text NOT NULL,
  payout_currency text NOT NULL REFERENCES qe_assets (code),
  payout_quantity numeric CHECK (payout_quantity > 0),
  funding_method text,
  funding_currency text REFERENCES qe_assets (code),
  funding_quantity numeric CHECK (funding_quantity > 0),
  partner_order_id text CHECK (char_length(partner_order_id) <= 40),
  partner_ref text,
  partner_tags jsonb,
  expires_at bigint,
  created_at bigint NOT NULL,
  -- Set by the first attempt of a ONE_TO_ONE_ATTEMPTED intent.
  consumed_at bigint,
  -- Quantity is fixed on exactly one side.
  CHECK ((payout_quantity IS NULL) <> (funding_quantity IS NULL)),
  CHECK ((funding_method IS NULL) = (funding_currency IS NULL))
);

-- Last created_at handed out per partner. Creating a transaction bumps it under a row lock held
-- until commit, so a partner's transactions get distinct created_at values that become visible
-- in increasing order: paging with min_ts = last created_at + 1 neither skips nor repeats.
CREATE TABLE qe_partner_clocks (
  partner_id bigint PRIMARY KEY REFERENCES partner_applications (id),
  last_created_at bigint NOT NULL
);

CREATE TABLE qe_transactions (
  id uuid PRIMARY KEY,
  partner_id bigint NOT NULL REFERENCES partner_applications (id),
  session_id uuid NOT NULL REFERENCES qe_sessions (id),
  intent_id uuid REFERENCES qe_intents (id),
  client_ref text,
  api_key text,
  symbol text NOT NULL,
  side text NOT NULL CHECK (side IN ('buy', 'sell')),
  funding_currency text NOT NULL REFERENCES qe_assets (code),
  funding_quantity numeric NOT NULL CHECK (funding_quantity > 0),
  payout_currency text NOT NULL REFERENCES qe_assets (code),
  payout_quantity numeric NOT NULL CHECK (payout_quantity > 0),
  quote_id text,
  quoted_at bigint NOT NULL,
  status text NOT NULL,
  partner_order_id text CHECK (char_length(partner_order_id) <= 40),
  partner_ref text,
  partner_tags jsonb,
  created_at bigint NOT NULL,
  UNIQUE (partner_id, client_ref),
  UNIQUE (partner_id, created_at)
);

CREATE INDEX qe_transactions_intent ON qe_transactions (intent_id);

CREATE TABLE qe_settlement_instructions (
  id uuid PRIMARY KEY,
  transaction_id uuid NOT NULL REFERENCES qe_transactions (id),
  direction text NOT NULL CHECK (direction IN ('FUNDING', 'PAYOUT')),
  method text NOT NULL,
  currency text NOT NULL REFERENCES qe_assets (code),
  quantity numeric NOT NULL CHECK (quantity > 0),
  status text NOT NULL,
  expires_at bigint,
  setup_parameters jsonb NOT NULL,
  required_input_parameters jsonb NOT NULL,
  received_input jsonb NOT NULL,
  UNIQUE (transaction_id, direction)
);
