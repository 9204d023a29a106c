/**
 * The sweep: every hostile value, in turn, in every field of every operation's body, the
 * rest of the request valid and signed. A bound missing on one field (a `client_ref` with no
 * maxLength that reaches an index) shows here for certain, where random requests are
 * usually refused for another of their values first. Each field's requests are checked like
 * every fuzzed answer, and when all of them were refused, the state reads as before.
 *
 * FUZZ_OPERATION limits the sweep to one operation; FUZZ_SEED changes the valid rest.
 */

import { apiNames, bundledDocuments } from '@exchange-kit/contract/documents';
import { operationsOf } from '@exchange-kit/contract/spec-reader';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  CaseFailure,
  describeStatuses,
  okStatus,
  type StatusCounts,
  sendChecked,
} from './cases.js';
import { targetedRequest, targetNodes } from './fuzz-requests.js';
import { type FuzzSandbox, startFuzzSandbox } from './fuzz-sandbox.js';
import { fuzzSettings } from './fuzz-settings.js';
import { everyHostileJson } from './hostile-values.js';
import { changedReads, observeState } from './observed-state.js';

let sandbox: FuzzSandbox;

beforeAll(async () => {
  sandbox = await startFuzzSandbox();
});
afterAll(() => sandbox?.stop());

const seed = fuzzSettings.seed ?? 1;

/** Every operation with a body, with the nodes of its body. */
const targets = apiNames.flatMap((api) =>
  operationsOf(bundledDocuments[api])
    .filter(
      (operation) =>
        fuzzSettings.operation === undefined || operation.operationId === fuzzSettings.operation,
    )
    .map((operation) => ({ api, operation, nodes: targetNodes(api, operation) }))
    .filter(({ nodes }) => nodes.length > 0),
);

it('answers every hostile value in every body field of an otherwise valid request with a 2xx or a 4xx that says why', async () => {
  expect(targets.length).toBeGreaterThan(0);
  const statuses: StatusCounts = new Map();
  let fields = 0;
  try {
    for (const { api, operation, nodes } of targets) {
      for (const node of nodes) {
        fields += 1;
        await sandbox.prepare();
        const before = await observeState(sandbox.caller, sandbox.reads);
        let accepted = false;
        for (const value of everyHostileJson) {
          const arbitrary = targetedRequest(api, operation, sandbox.target, node, value);
          const [request] = fc.sample(arbitrary, { seed, numRuns: 1 });
          if (!request) throw new Error(`no request for ${operation.operationId}`);
          const answer = await sendChecked(sandbox.caller, request, statuses);
          accepted ||= okStatus(answer.status);
        }
        const after = await observeState(sandbox.caller, sandbox.reads);
        const changed = changedReads(before, after);
        if (!accepted && changed.length > 0) {
          expect.fail(
            `${operation.operationId} ${node.join('.')}: every value was refused, and afterwards ${changed.join(', ')} read differently`,
          );
        }
      }
    }
  } catch (error) {
    if (!(error instanceof CaseFailure)) throw error;
    expect.fail(
      `Failed: ${error.message}\n\nReplay: FUZZ_OPERATION=${error.request.operationId} FUZZ_SEED=${seed} npx -y pnpm@10.34.9 --filter @exchange-kit/sandbox exec vitest run src/testing/fuzz/sweep.test.ts`,
    );
  } finally {
    console.info(
      `sweep: ${fields} fields × ${everyHostileJson.length} values, seed ${seed}\nanswers: ${describeStatuses(statuses)}`,
    );
  }
}, 600_000);
