/** The fuzzer's settings, read from the environment so a printed failure replays as given. */

function integerFromEnv(name: string, fallback: number, min: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new Error(`${name} must be a whole number of at least ${min}`);
  }
  return value;
}

export const fuzzSettings = {
  /** FUZZ_RUNS: batches of up to five requests. */
  runs: integerFromEnv('FUZZ_RUNS', 1_000, 1),
  /** FUZZ_SECONDS: the time budget of the random run. */
  seconds: integerFromEnv('FUZZ_SECONDS', 90, 1),
  /** FUZZ_SEED: fast-check's seed, a 32-bit integer, negative ones included. */
  seed: process.env.FUZZ_SEED ? integerFromEnv('FUZZ_SEED', 0, -(2 ** 31)) : undefined,
  /** FUZZ_PATH: the counterexample path fast-check printed. */
  path: process.env.FUZZ_PATH || undefined,
  /** FUZZ_OPERATION: the sweep limited to one operation id. */
  operation: process.env.FUZZ_OPERATION || undefined,
};
