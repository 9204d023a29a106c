/**
 * The id of a record that `text` names, if it names one: digits with no leading zero, as ids
 * are written. "08" names none, so no path reads it as 8 where another refuses it. At most 15
 * digits: every id handed out is a safe integer, and a longer one cannot be.
 */
export function idNamed(text: string | number): number | undefined {
  const digits = String(text);
  return /^(0|[1-9][0-9]{0,14})$/.test(digits) ? Number(digits) : undefined;
}
