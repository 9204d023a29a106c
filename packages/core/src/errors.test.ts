import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  errorFromResponse,
  NotFoundError,
  OrderNotLiveError,
  RateLimitedError,
  retryAfterSeconds,
  ServerError,
  UnexpectedStatusError,
  ValidationError,
} from './errors.js';

const details = (body: unknown, headers: Record<string, string> = {}) => ({
  request: { method: 'PUT', path: '/orders/1/cancel' },
  body,
  headers: new Headers(headers),
});

describe('errorFromResponse', () => {
  it.each([
    [400, {}, ValidationError],
    [401, {}, AuthenticationError],
    [404, {}, NotFoundError],
    [404, { notFound: 'order-not-live' as const }, OrderNotLiveError],
    [422, {}, ValidationError],
    [429, {}, RateLimitedError],
    [403, {}, UnexpectedStatusError],
    [409, {}, UnexpectedStatusError],
    [500, {}, ServerError],
    [503, {}, ServerError],
  ])('maps %i to its class', (status, options, type) => {
    const error = errorFromResponse(status, details({ message: 'x' }), options);
    expect(error).toBeInstanceOf(type);
    expect(error.status).toBe(status);
  });

  it('says what the server said, in either error shape, and the call it answered', () => {
    expect(
      errorFromResponse(
        422,
        details({ errors: { price: ['price_too_high'], user: ['product_disabled'] } }),
      ).message,
    ).toBe(
      'PUT /orders/1/cancel: validation failed (price: price_too_high; user: product_disabled)',
    );
    expect(errorFromResponse(401, details('API Authentication failed')).message).toBe(
      'PUT /orders/1/cancel: authentication failed (API Authentication failed)',
    );
  });
});

describe('retryAfterSeconds', () => {
  it('reads the header in seconds or as a date, else the conventional message', () => {
    expect(retryAfterSeconds(new Headers({ 'retry-after': '12' }))).toBe(12);
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    expect(retryAfterSeconds(new Headers({ 'retry-after': inTenSeconds }))).toBeGreaterThanOrEqual(
      9,
    );
    expect(
      retryAfterSeconds(new Headers(), {
        message: 'API rate limit exceeded. Please retry after 300s',
      }),
    ).toBe(300);
    expect(retryAfterSeconds(new Headers(), { message: 'slow down' })).toBeUndefined();
  });
});
