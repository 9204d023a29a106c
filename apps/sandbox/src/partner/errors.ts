import { NotAuthenticated, NotFound, Refusal } from '../domain/errors.js';

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

/**
 * PostgreSQL text and jsonb cannot hold U+0000, so a string carrying it would fail in the
 * store; it is refused up front as an unacceptable field instead.
 */
export function rejectNul(value: unknown, field = ''): void {
  const at = (key: string) => (field === '' ? key : `${field}.${key}`);
  if (typeof value === 'string') {
    if (value.includes('\u0000')) throw invalid(field || 'body', 'invalid_character');
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) rejectNul(item, at(String(index)));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) throw invalid(field || 'body', 'invalid_character');
      rejectNul(item, at(key));
    }
  }
}
