/** The run could not proceed at all (bad options, server unreachable): exit code 2. */
export class RunAbortedError extends Error {
  override name = 'RunAbortedError';
}

/**
 * The server refused a credential before any requirement ran: every verdict would blame the
 * server for it. `credential` names which one.
 */
export class CredentialsRefusedError extends RunAbortedError {
  override name = 'CredentialsRefusedError';
  constructor(
    readonly credential: 'token' | 'public-api-key',
    message: string,
  ) {
    super(message);
  }
}
