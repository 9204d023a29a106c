import { type Caller, HttpError } from '../http/types.js';

/** The user a private exchange call acts for: the token's own user, or the OAuth grantor. */
export function actingUser(caller: Caller): number {
  if (caller.kind === 'token' || caller.kind === 'oauth' || caller.kind === 'partner') {
    return caller.userId;
  }
  throw new HttpError(401, 'API Authentication failed');
}
