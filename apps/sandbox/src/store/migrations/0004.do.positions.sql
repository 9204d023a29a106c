-- A take profit or stop loss order names the trade it closes in unwound_trade_id; trade_id is
-- the position an order opened. Orders stored before kept the closed trade in trade_id.
ALTER TABLE orders ADD COLUMN unwound_trade_id bigint;
UPDATE orders SET unwound_trade_id = trade_id, trade_id = NULL WHERE trade_id IS NOT NULL;

-- How far a trailing stop's trigger (its price) follows the market.
ALTER TABLE orders ADD COLUMN trailing_stop_type text
  CHECK (trailing_stop_type IN ('fiat', 'percentage'));
ALTER TABLE orders ADD COLUMN trailing_stop_value numeric
  CHECK ((trailing_stop_type IS NULL) = (trailing_stop_value IS NULL) AND trailing_stop_value > 0);

-- Margin positions: opened by an order's fills, closed by its take profit or stop loss. The id
-- is that of the fill that opened the position.
CREATE TABLE positions (
  id bigint PRIMARY KEY REFERENCES fills (id),
  user_id bigint NOT NULL REFERENCES users (id),
  product_id bigint NOT NULL REFERENCES products (id),
  trading_type text NOT NULL,
  side text NOT NULL CHECK (side IN ('buy', 'sell')),
  leverage_level integer NOT NULL,
  funding_currency text NOT NULL,
  quantity numeric NOT NULL CHECK (quantity > 0),
  -- Sum of price * quantity over the opening fills, so the average open price stays exact.
  open_value numeric NOT NULL,
  closed_quantity numeric NOT NULL DEFAULT 0,
  closed_value numeric NOT NULL DEFAULT 0,
  -- What the position holds of its owner's funding currency right now.
  margin numeric NOT NULL CHECK (margin >= 0),
  realized_pnl numeric NOT NULL DEFAULT 0,
  status text NOT NULL CHECK (status IN ('open', 'closed')),
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CHECK (closed_quantity >= 0 AND closed_quantity <= quantity)
);
