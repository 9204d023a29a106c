-- What a fill realized for each margin side (`pnl` of the caller's fills): the profit or loss
-- paid to a side that closed part of a trade, 0 to one that opened or added to one, null for
-- a spot side. Fills written before this are left null: a close's P&L was paid against its
-- trade, not its fill, and which fill paid how much cannot be told from what is kept.
ALTER TABLE fills ADD COLUMN taker_pnl numeric;
ALTER TABLE fills ADD COLUMN maker_pnl numeric;
