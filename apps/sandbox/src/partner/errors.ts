import { NotAuthenticated, NotFound, Refusal } from '../handling/errors.js';

/** A field that names something that does not exist, naming the field. */
export function notFound(what: string, field: string): NotFound {
  return new NotFound(`${what} not found`, field);
}

/** A well-formed field whose value is not acceptable, naming the field and the reason. */
export function invalid(field: string, code: string, message?: string): Refusal {
  return new Refusal(field, code, message);
}

export function unauthorized(message: string): NotAuthenticated {
  return new NotAuthenticated(message);
}
