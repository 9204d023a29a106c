/**
 * Why the domain declines a call, in its own terms: which field, which rule, what is missing.
 * The HTTP edge decides how each kind is answered; nothing here knows a status code.
 */
export abstract class DomainError extends Error {
  /** The refused fields and their machine-readable codes, `{quantity: ["must_be_positive"]}`. */
  readonly errors?: Record<string, string[]>;

  constructor(message: string, errors?: Record<string, string[]>) {
    super(message);
    this.name = new.target.name;
    if (errors) this.errors = errors;
  }
}

/** A well-formed field whose value the rules do not accept. */
export class Refusal extends DomainError {
  constructor(
    readonly field: string,
    readonly code: string,
    message = `Validation failed: ${field} ${code}`,
  ) {
    super(message, { [field]: [code] });
  }
}

/** Something the call names does not exist, or is not the caller's to see. */
export class NotFound extends DomainError {
  constructor(message: string, field?: string) {
    super(message, field === undefined ? undefined : { [field]: ['not_found'] });
  }
}

/** The caller is not who the call needs, or proved nothing. */
export class NotAuthenticated extends DomainError {}

/** The caller is known but may not do this. */
export class Forbidden extends DomainError {}
