import { type RequirementId, requirement } from '@exchange-kit/contract/state-tables';

/**
 * What a row of the state tables expects: its status and, where it moves a state, the next
 * one (`unchanged` when the call must leave it as it was). Scenarios take their verdicts from
 * here, so a changed row changes the verdict.
 */
export function expected(id: RequirementId): { status: number; next: string | undefined } {
  const { status, next } = requirement(id).expect;
  return { status, next };
}
