/**
 * One fuzzed case: a request sent to the sandbox and its answer put through every check,
 * failing with the request that failed it.
 */

import { apiNames, bundledDocuments } from '@exchange-kit/contract/documents';
import { operationsOf } from '@exchange-kit/contract/spec-reader';
import { answerChecks } from './checks.js';
import type { FuzzRequest } from './fuzz-requests.js';
import { describeRequest } from './report.js';
import type { FuzzResponse, SandboxCaller } from './sandbox-caller.js';

/** Which operations take a body, by api and operation id, read from the specs. */
const takesBody = new Set(
  apiNames.flatMap((api) =>
    operationsOf(bundledDocuments[api])
      .filter((operation) => operation.operation.requestBody !== undefined)
      .map((operation) => `${api}:${operation.operationId}`),
  ),
);

/** A failed case, with the request that failed it. */
export class CaseFailure extends Error {
  constructor(
    readonly request: FuzzRequest,
    readonly check: string,
    detail: string,
  ) {
    super(`${check}\n${detail}\n\n${describeRequest(request)}`);
  }
}

export const okStatus = (status: number) => status >= 200 && status < 300;

/** Response counts by status, for the summary a run prints. */
export type StatusCounts = Map<number, number>;

export function describeStatuses(statuses: StatusCounts): string {
  return [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
}

/** Sends `request` and checks its answer; throws a CaseFailure at the first check it fails. */
export async function sendChecked(
  caller: SandboxCaller,
  request: FuzzRequest,
  statuses: StatusCounts,
): Promise<FuzzResponse> {
  const answer = await caller.send(request).catch((error: unknown) => {
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
  return answer;
}
