import { readFile } from 'node:fs/promises';

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
    if (
      typeof expires !== 'string' ||
      !/^\d{4}-\d{2}-\d{2}$/.test(expires) ||
      Number.isNaN(Date.parse(expires))
    ) {
      throw new Error(`${source}[${index}] (${id}) needs expires as a date, YYYY-MM-DD`);
    }
    return { id, reason, expires };
  });
}

/** Whether an entry still applies on `now`: through the whole day of its expiry. */
export function isCurrent(entry: ExpectedFailure, now: Date): boolean {
  return now.getTime() < Date.parse(entry.expires) + 24 * 60 * 60 * 1000;
}
