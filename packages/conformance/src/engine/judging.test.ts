import { describe, expect, it } from 'vitest';
import { catalogById } from './catalog.js';
import { type RequirementResult, resultOf } from './judging.js';
import type { RecordedCall } from './outcome.js';

const listFees = catalogById.get('RESPONSE-LIST-FEES');
if (!listFees) throw new Error('RESPONSE-LIST-FEES is not in the catalog');

/** A check a scenario judged broken at `level`, before it read the fee list. */
const broken = (verdict: 'WARN' | 'FAIL'): RequirementResult => ({
  id: 'FEE-ESTIMATE-MATCHES-FILL',
  level: verdict === 'WARN' ? 'SHOULD' : 'MUST',
  kind: 'state-table',
  profiles: ['orders'],
  origin: 'convention',
  summary: '',
  verdict,
  message: 'the estimate was off',
  evidence: [],
  durationMs: 0,
});

const unread = (failedBefore?: RequirementResult) =>
  resultOf(listFees, [], undefined, new Date(), [], 0, failedBefore);

describe('a response requirement whose operation was never called', () => {
  it('is skipped when nothing stopped the scenario that reads it', () => {
    expect(unread()).toMatchObject({ verdict: 'SKIP', message: 'listFees was never called' });
  });

  it('is an error when a scenario may have stopped at a broken MUST before reading it', () => {
    expect(unread(broken('FAIL'))).toMatchObject({
      verdict: 'ERROR',
      message: expect.stringContaining('may have stopped at FEE-ESTIMATE-MATCHES-FILL (FAIL)'),
    });
  });

  it('is an error when it was called and never answered with success, even behind a SHOULD', () => {
    const refused = {
      operationId: 'listFees',
      method: 'GET',
      url: 'http://127.0.0.1/fees',
      status: 404,
      durationMs: 1,
    } as unknown as RecordedCall;
    const result = resultOf(listFees, [], undefined, new Date(), [refused], 0, broken('WARN'));
    expect(result).toMatchObject({
      verdict: 'ERROR',
      message: expect.stringContaining('no call of listFees was answered with success (404)'),
    });
  });

  it('is skipped, saying where, when the scenario stopped at a SHOULD: the run exits 0', () => {
    expect(unread(broken('WARN'))).toMatchObject({
      verdict: 'SKIP',
      message: expect.stringContaining('may have stopped at FEE-ESTIMATE-MATCHES-FILL (WARN)'),
    });
  });
});
