import type { SessionSignRequest, SignRequest } from '../signing/sign.js';
import type { Violation } from './validate.js';

/** One HTTP call the suite made, as the reports show it. */
export interface RecordedCall {
  operationId: string;
  method: string;
  url: string;
  /** Request headers; X-Service-Auth and Authorization are kept so curl can show their payload. */
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status: number;
  contentType: string | null;
  responseText: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
  /** How the response differs from the spec. */
  violations: Violation[];
  durationMs: number;
  /** When the answer arrived, Unix milliseconds. */
  receivedAt?: number;
  /** The answer's Date header, Unix milliseconds: when the server says it answered. */
  serverDate?: number;
  /**
   * Its curl line, as a JSON report writes it in place of the headers: a report read back
   * from JSON is written again as JUnit or HTML with the line it kept.
   */
  curl?: string;
  /**
   * How the X-Service-Auth JWT was signed, when it was signed with the token secret: a report
   * prints a command that signs it again instead of the JWT, whose nonce has been used up.
   * `'as-sent'`: shown as it was sent, being a forgery (not signed with the token secret) or a
   * JWT sent a second time on purpose (the replay attack), which a fresh one would not repeat.
   */
  signing?: SignRequest | 'as-sent';
  /**
   * The user session whose secret signed the Authorization JWT, for the suite's own session
   * calls: a report prints a command that signs it again, the session's secret with it (a
   * secret of the run's own session, which the server gave the run).
   */
  sessionSigning?: SessionSignRequest;
}

/** A check found the server doing something else than the spec bundledDocuments. */
export class Failure extends Error {
  constructor(
    message: string,
    readonly details: {
      received?: string;
      documented?: string;
      call?: RecordedCall;
      steps?: RecordedCall[];
    } = {},
  ) {
    super(message);
    this.name = 'Failure';
  }
}

/** The server lacks a capability the check needs (or the adapter gives none): SKIP, with why. */
export class Skip extends Error {
  override name = 'Skip';
}

/** Setting a check up broke (a fixture could not be made): ERROR, never counted as FAIL. */
export class SetupError extends Error {
  constructor(
    message: string,
    readonly call?: RecordedCall,
  ) {
    super(message);
    this.name = 'SetupError';
  }
}

/**
 * What a scenario needs of the server does not hold (two orders got one id, an order just made
 * cannot be read back): every requirement of the scenario is an ERROR with the reason, even
 * those it had checked, since those checks proved nothing.
 */
export class PreconditionError extends SetupError {
  override name = 'PreconditionError';
}

export type Outcome = 'pass' | 'fail' | 'error' | 'skip';

/** What one check of a scenario found about one requirement. */
export interface Evidence {
  requirementId: string;
  outcome: Outcome;
  message: string;
  received?: string;
  documented?: string;
  call?: RecordedCall;
  /** The calls the check made after `call` (its read-backs), each reproducible on its own. */
  steps?: RecordedCall[];
  /** An error because the scenario's precondition did not hold: it outweighs any pass or fail. */
  precondition?: true;
}

// Statuses by which a server says it has no such operation at all.
const absent = [404, 405, 501];

/**
 * The error for a fixture call that did not succeed: SKIP when the server lacks the operation
 * (it answered 404, 405 or 501; leave its profile out), ERROR otherwise.
 */
export function fixtureFailed(
  what: string,
  call: RecordedCall,
  profile: string,
): SetupError | Skip {
  const path = new URL(call.url).pathname;
  if (absent.includes(call.status)) {
    return new Skip(
      `${call.method} ${path} answered ${call.status}: the server seems not to offer it (leave the ${profile} profile out with --profile)`,
    );
  }
  return new SetupError(
    `${what}: ${call.method} ${path} answered ${call.status} ${call.responseText.slice(0, 200)}`,
    call,
  );
}
