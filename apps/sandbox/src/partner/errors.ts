import { HttpError } from '../http/types.js';

/** A field that names something that does not exist: 404, naming the field. */
export function notFound(what: string, field: string): HttpError {
  return new HttpError(404, `${what} not found`, { [field]: ['not_found'] });
}

/** A well-formed field whose value is not acceptable: 422, naming the field and the reason. */
export function invalid(field: string, code: string, message?: string): HttpError {
  return new HttpError(422, message ?? `Validation failed: ${field} ${code}`, { [field]: [code] });
}

export function unauthorized(message: string): HttpError {
  return new HttpError(401, message);
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
