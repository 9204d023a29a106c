/**
 * The sandbox under fuzzing: requests to every operation of both interfaces, drawn from the
 * specs' request schemas with hostile values swapped in, sent anonymous, signed and forged
 * to a real sandbox process. Every answer passes the checks of `checks.ts`, the sandbox
 * keeps answering, and whatever was refused left the observed state as it was.
 *
 * FUZZ_RUNS sets the number of batches (of up to five requests), FUZZ_SECONDS the time
 * budget; FUZZ_SEED and FUZZ_PATH replay a failure as printed.
 */

import { operationsOf } from '@exchange-kit/contract/spec-reader';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { answerChecks } from './checks.js';
import { documents, type FuzzRequest, fuzzRequest } from './fuzz-requests.js';
import { type FuzzSandbox, startFuzzSandbox } from './fuzz-sandbox.js';
import { changedReads, observeState } from './observed-state.js';
import { describeRequest } from './report.js';

function integerFromEnv(name: string, fallback: number, min: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new Error(`${name} must be a whole number of at least ${min}`);
  }
  return value;
}

const runs = integerFromEnv('FUZZ_RUNS', 1_000, 1);
const seconds = integerFromEnv('FUZZ_SECONDS', 90, 1);
// fast-check's seeds are 32-bit integers, negative ones included.
const seed = process.env.FUZZ_SEED ? integerFromEnv('FUZZ_SEED', 0, -(2 ** 31)) : undefined;
const path = process.env.FUZZ_PATH || undefined;

let sandbox: FuzzSandbox;

beforeAll(async () => {
  sandbox = await startFuzzSandbox();
});
afterAll(() => sandbox?.stop());

/** Which operations take a body, by api and operation id, read from the specs. */
const takesBody = new Set(
  (['exchange', 'partner'] as const).flatMap((api) =>
    operationsOf(documents[api])
      .filter((operation) => operation.operation.requestBody !== undefined)
      .map((operation) => `${api}:${operation.operationId}`),
  ),
);

/** A failed case, with the request that failed it. */
class CaseFailure extends Error {
  constructor(
    readonly request: FuzzRequest,
    readonly check: string,
    detail: string,
  ) {
    super(`${check}\n${detail}\n\n${describeRequest(request)}`);
  }
}

const okStatus = (status: number) => status >= 200 && status < 300;

/** Sends a batch; throws a CaseFailure at the first case that fails a check. */
async function runBatch(batch: FuzzRequest[], statuses: Map<number, number>): Promise<void> {
  await sandbox.prepare();
  let before = await observeState(sandbox.caller, sandbox.reads);
  for (const request of batch) {
    const answer = await sandbox.caller.send(request).catch((error: unknown) => {
      throw new CaseFailure(request, 'an answer to every request', String(error));
    });
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    // Checked as sent: with the placeholders filled in.
    const checked = {
      request: answer.sent,
      answer,
      takesBody: takesBody.has(`${request.api}:${request.operationId}`),
    };
    for (const check of answerChecks) {
      const failure = check.run(checked);
      if (failure) throw new CaseFailure(request, check.name, failure);
    }
    const after = await observeState(sandbox.caller, sandbox.reads).catch((error: unknown) => {
      throw new CaseFailure(request, 'the sandbox still answers', String(error));
    });
    const changed = changedReads(before, after);
    if (!okStatus(answer.status) && changed.length > 0) {
      throw new CaseFailure(
        request,
        'a refused request changes nothing',
        `Received ${answer.status}, and afterwards ${changed.join(', ')} read differently\nDocumented: a refusal stores nothing`,
      );
    }
    before = after;
  }
}

it(
  'answers every fuzzed request of both interfaces with a 2xx or a 4xx that says why, and changes nothing it refuses',
  async () => {
    const started = Date.now();
    // How the requests were answered: mostly refusals, with enough 2xx to show that the
    // generated requests reach past validation.
    const statuses = new Map<number, number>();
    const property = fc.asyncProperty(
      fc.array(fuzzRequest(sandbox.target), { minLength: 1, maxLength: 5 }),
      async (batch) => {
        await runBatch(batch, statuses);
      },
    );
    const details = await fc.check(property, {
      numRuns: runs,
      ...(seed === undefined ? {} : { seed }),
      ...(path === undefined ? {} : { path }),
      plugins: [fc.interruptAfterTimeLimit(seconds * 1000)],
    });
    const elapsed = ((Date.now() - started) / 1000).toFixed(1);
    const sent = [...statuses.values()].reduce((sum, count) => sum + count, 0);
    const answered = [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}×${count}`)
      .join(' ');
    console.info(
      `fuzz: ${details.numRuns} batches, ${sent} requests answered (shrinking included), ${details.numShrinks} shrinks, ${elapsed} s, seed ${details.seed}${details.interrupted ? ', stopped at the time budget' : ''}\nanswers: ${answered}`,
    );
    if (details.failed) {
      const failure = details.errorInstance;
      const batch = (details.counterexample as [FuzzRequest[]] | null)?.[0] ?? [];
      const minimal = batch.map(describeRequest).join('\n\n');
      const replay = `FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath} npx -y pnpm@10.34.9 --filter @exchange-kit/sandbox exec vitest run src/fuzz`;
      expect.fail(
        [
          `Failed: ${failure instanceof Error ? failure.message : String(failure)}`,
          '',
          `Minimal batch after ${details.numShrinks} shrinks, in the order sent (the failing request is the one above):`,
          minimal,
          '',
          `Placeholders stood for: ${JSON.stringify(sandbox.knownValues())}`,
          `Replay: ${replay}`,
        ].join('\n'),
      );
    }
  },
  (seconds + 120) * 1000,
);
