import { operationTable } from '@exchange-kit/contract/partner';
import type { Handler, Handlers } from '../handling/operation.js';
import { unauthorized } from './errors.js';

/**
 * The operations the spec lets a user session sign with its Bearer JWT. The spec also lets
 * them go without one; a real service may not, and `--require-session-auth` plays that
 * service so that clients can show they sign.
 */
export const sessionSignedOperations: readonly string[] = Object.entries(operationTable)
  .filter(([, operation]) => operation.authPayload === 'SessionAuthPayload')
  .map(([operationId]) => operationId);

/** `handlers` with every session operation refusing a call that carries no session JWT. */
export function requiringSessionAuth(handlers: Handlers): Handlers {
  const requiring =
    (handler: Handler): Handler =>
    (context) => {
      if (context.caller.kind !== 'session') throw unauthorized('API Authentication failed');
      return handler(context);
    };
  return Object.fromEntries(
    Object.entries(handlers).map(([operationId, handler]) => [
      operationId,
      sessionSignedOperations.includes(operationId) ? requiring(handler) : handler,
    ]),
  );
}
