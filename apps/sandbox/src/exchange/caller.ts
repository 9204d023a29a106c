import { NotAuthenticated } from '../handling/errors.js';
import type { Caller } from '../handling/operation.js';

/** The user a private exchange call acts for: the token's own user, or the OAuth grantor. */
export function actingUser(caller: Caller): number {
  if (caller.kind === 'token' || caller.kind === 'oauth' || caller.kind === 'partner') {
    return caller.userId;
  }
  throw new NotAuthenticated('API Authentication failed');
}
