// A read of the operations table, no signing: the transport and the clients ask it before any
// signing code is loaded, so it lives with them rather than under auth/.
/** What the contract's operations tables say of how one operation is authenticated. */
export interface OperationAuth {
  readonly security?: string | null;
  readonly authPayload?: string | null;
}

/**
 * How a call of an operation is signed: X-Service-Auth with one's own token (`service`, which
 * an approved OAuth request turns into a call for its user), the partner's delegated payload
 * (`delegated`), the session Bearer JWT (`session`), or not at all.
 */
export type CallSigning = 'service' | 'delegated' | 'session' | 'none';

/** The signing an operation's row of `operationTable` asks for. */
export function callSigningOf(operation: OperationAuth): CallSigning {
  if (operation.security === 'ServiceAuth') {
    return operation.authPayload === 'PartnerDelegatedPayload' ? 'delegated' : 'service';
  }
  return operation.security === 'SessionBearer' ? 'session' : 'none';
}
