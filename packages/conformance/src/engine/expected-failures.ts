import { readFile } from 'node:fs/promises';
import { catalogById } from './catalog.js';

/** A requirement known to fail on the server under test, for a reason, until a date. */
export interface ExpectedFailure {
  id: string;
  reason: string;
  /** ISO date (YYYY-MM-DD) after which the entry no longer applies and the failure counts again. */
  expires: string;
}

/** Reads and checks an expected-failures file: a JSON array of {id, reason, expires}. */
export async function readExpectedFailures(file: string): Promise<ExpectedFailure[]> {
  return parseExpectedFailures(await readFile(file, 'utf8'), file);
}

export function parseExpectedFailures(
  text: string,
  source = 'expected failures',
): ExpectedFailure[] {
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source} is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(entries))
    throw new Error(`${source} must be a JSON array of {id, reason, expires}`);
  return entries.map((entry, index) => {
    const { id, reason, expires } = (entry ?? {}) as Record<string, unknown>;
    if (typeof id !== 'string' || typeof reason !== 'string' || reason.trim() === '') {
      throw new Error(`${source}[${index}] needs an id and a reason`);
    }
    if (!catalogById.has(id)) {
      throw new Error(
        `${source}[${index}] (${id}): no requirement has this id; \`exchange-conformance list\` shows them all`,
      );
    }
    if (typeof expires !== 'string' || !isCalendarDate(expires)) {
      throw new Error(
        `${source}[${index}] (${id}) needs expires as a date of the calendar, YYYY-MM-DD${typeof expires === 'string' ? `, not ${expires}` : ''}`,
      );
    }
    return { id, reason, expires };
  });
}

/** YYYY-MM-DD naming a day that exists: Date.parse takes 2030-02-31 for 3 March. */
function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const time = Date.parse(text);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === text;
}

/** Whether an entry still applies on `now`: through the whole day of its expiry. */
export function isCurrent(entry: ExpectedFailure, now: Date): boolean {
  return now.getTime() < Date.parse(entry.expires) + 24 * 60 * 60 * 1000;
}
