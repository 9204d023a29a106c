import { operationTable } from '@exchange-kit/contract/exchange';
import type { Reply } from '../handling/operation.js';
import type { Route } from '../http/router.js';
import { type RawRequest, validateRequest } from '../http/validate.js';

type Codes = Record<string, readonly string[] | undefined>;

/**
 * Throws when `reply` refuses an exchange call by a rule naming a field and code its
 * operation's `x-error-codes` do not list: clients narrow a 422 by those codes
 * (`isValidationErrorOf`), so one the spec leaves out is one they cannot name. A refusal by
 * the schemas is the spec's own and not checked; a code written `code:detail` is `code`.
 */
export function checkDocumentedRefusal(route: Route, sent: RawRequest, reply: Reply): void {
  if (route.api !== 'exchange' || reply.status !== 422) return;
  const errors = (reply.body as { errors?: Record<string, string[]> } | undefined)?.errors;
  if (!errors) return;
  try {
    validateRequest(route, sent);
  } catch {
    return;
  }
  const { operationId } = route.operation;
  const documented = (operationTable as Record<string, { errorCodes: Codes }>)[operationId]
    ?.errorCodes;
  for (const [field, codes] of Object.entries(errors)) {
    for (const code of codes) {
      const listed = documented?.[field] ?? [];
      if (!listed.includes(code) && !listed.includes(code.split(':')[0] as string)) {
        throw new Error(
          `${operationId} refused ${field}: ${code}, which its x-error-codes do not list`,
        );
      }
    }
  }
}
