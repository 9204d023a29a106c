/**
 * The sandbox under fuzzing: requests to every operation of both interfaces, drawn from the
 * specs' request schemas with hostile values swapped in, sent anonymous, signed and forged
 * to a real sandbox process. Every answer passes the checks of `checks.ts`, the sandbox
 * keeps answering, and whatever was refused left the observed state as it was.
 *
 * FUZZ_RUNS sets the number of batches (of up to five requests), FUZZ_SECONDS the time
 * budget; FUZZ_SEED and FUZZ_PATH replay a failure as printed.
 */

import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  CaseFailure,
  describeStatuses,
  okStatus,
  type StatusCounts,
  sendChecked,
} from './cases.js';
import { type FuzzRequest, fuzzRequest } from './fuzz-requests.js';
import { type FuzzSandbox, startFuzzSandbox } from './fuzz-sandbox.js';
import { fuzzSettings } from './fuzz-settings.js';
import { changedReads, observeState } from './observed-state.js';
import { describeRequest } from './report.js';

const { runs, seconds, seed, path } = fuzzSettings;

let sandbox: FuzzSandbox;

beforeAll(async () => {
  sandbox = await startFuzzSandbox();
});
afterAll(() => sandbox?.stop());

/** Sends a batch; throws a CaseFailure at the first case that fails a check. */
async function runBatch(batch: FuzzRequest[], statuses: StatusCounts): Promise<void> {
  await sandbox.prepare();
  let before = await observeState(sandbox.caller, sandbox.reads);
  for (const request of batch) {
    const answer = await sendChecked(sandbox.caller, request, statuses);
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
    const statuses: StatusCounts = new Map();
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
    const answered = describeStatuses(statuses);
    console.info(
      `fuzz: ${details.numRuns} batches, ${sent} requests answered (shrinking included), ${details.numShrinks} shrinks, ${elapsed} s, seed ${details.seed}${details.interrupted ? ', stopped at the time budget' : ''}\nanswers: ${answered}`,
    );
    if (details.failed) {
      const failure = details.errorInstance;
      const batch = (details.counterexample as [FuzzRequest[]] | null)?.[0] ?? [];
      const minimal = batch.map(describeRequest).join('\n\n');
      const replay = `FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath} npx -y pnpm@10.34.9 --filter @exchange-kit/sandbox exec vitest run src/testing/fuzz`;
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
