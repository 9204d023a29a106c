/**
 * Values of the running sandbox a request needs to get past a lookup (an order id that
 * exists), written into generated requests as placeholders and filled in when sent: the
 * order behind them may be replaced between batches, and a shrunk or replayed request still
 * means "the demo user's live order".
 */

/** A placeholder's text: only characters a path segment and a JSON string keep as they are. */
export const placeholder = (name: string) => `~known.${name}~`;

const placeholders = /~known\.([a-z_]+)~/g;

/** Every placeholder in `text` replaced by its current value; unknown names stay as written. */
export function fillIn(text: string, values: Record<string, string>): string {
  return text.replace(placeholders, (whole, name: string) => values[name] ?? whole);
}
