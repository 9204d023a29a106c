import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  describeNetworkFailure,
  errorFromResponse,
  NotFoundError,
  OAuthRequestDeniedError,
  OAuthRequestExpiredError,
  OAuthRequestPendingError,
  OAuthRequestRefusedError,
  OrderNotLiveError,
  oauthRequestRefusal,
  RateLimitedError,
  retryAfterSeconds,
  ServerError,
  TransportError,
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
      'PUT /orders/1/cancel: API Authentication failed',
    );
  });

  it('names the refused field when the body has a message besides the fields, as the partner one does', () => {
    const error = errorFromResponse(
      422,
      details({ success: false, message: 'Invalid body', errors: { quantity: ['required'] } }),
    );
    expect(error.message).toBe(
      'PUT /orders/1/cancel: validation failed (Invalid body: quantity: required)',
    );
  });

  it('says a message that already names the field and its code once', () => {
    const error = errorFromResponse(
      422,
      details({
        success: false,
        message: 'Validation failed: quantity must_be_positive',
        errors: { quantity: ['must_be_positive'] },
      }),
    );
    expect(error.message).toBe(
      'PUT /orders/1/cancel: Validation failed: quantity must_be_positive',
    );
    const partly = errorFromResponse(
      422,
      details({ message: 'Intent not found', errors: { intent_id: ['not_found'] } }),
    );
    expect(partly.message).toBe(
      'PUT /orders/1/cancel: validation failed (Intent not found: intent_id: not_found)',
    );
  });

  it('names what a 404 did not find when the body says, as a refusal names its fields', () => {
    const intent = errorFromResponse(
      404,
      details({
        success: false,
        message: 'Intent not found',
        errors: { intent_id: ['not_found'] },
      }),
    ) as NotFoundError;
    expect(intent).toBeInstanceOf(NotFoundError);
    expect(intent.fields).toEqual({ intent_id: ['not_found'] });
    expect((errorFromResponse(404, details('No route')) as NotFoundError).fields).toEqual({});
  });

  it('lists what a 401 of a user session may mean, the required Bearer JWT first', () => {
    const refused = errorFromResponse(401, details('API Authentication failed'), {
      authPayload: 'SessionAuthPayload',
    }) as AuthenticationError;
    expect(refused.possibleCauses[0]).toMatch(
      /Bearer JWT refuses a call made without it: make the call through forSession/,
    );
    expect(refused.possibleCauses[1]).toMatch(/session id or secret is wrong/);
    expect(refused.message).toContain(
      "possible causes: a server that requires the session's Bearer JWT",
    );
    const nonce = errorFromResponse(401, details('Nonce is too small'), {
      authPayload: 'SessionAuthPayload',
    }) as AuthenticationError;
    expect(nonce.possibleCauses).toEqual([]);
  });

  it('lists what a 401 through an OAuth request may mean, the unapproved request first', () => {
    const delegated = errorFromResponse(401, details('API Authentication failed'), {
      authPayload: 'OAuthDelegatedPayload',
    }) as AuthenticationError;
    expect(delegated.message).toMatch(
      /: API Authentication failed; possible causes: the OAuth request may not be approved yet/,
    );
    const own = errorFromResponse(401, details('API Authentication failed'), {
      authPayload: 'ServiceAuthPayload',
    }) as AuthenticationError;
    expect(own.message).toBe('PUT /orders/1/cancel: API Authentication failed');
    expect(own.possibleCauses).toEqual([]);
    // A nonce refusal already says what it is.
    const nonce = errorFromResponse(401, details('Nonce is too small'), {
      authPayload: 'OAuthDelegatedPayload',
    }) as AuthenticationError;
    expect(nonce.possibleCauses).toEqual([]);
  });
});

describe('TransportError', () => {
  it('names the network failure as Node does, through the wrappers fetch puts around it', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4000'), {
      code: 'ECONNREFUSED',
      address: '127.0.0.1',
      port: 4000,
    });
    const request = { method: 'GET', path: '/orders' };
    expect(new TransportError(request, 'network', { cause: refused }).message).toBe(
      'GET /orders: network error (connect ECONNREFUSED 127.0.0.1:4000)',
    );
    const viaFetch = new TypeError('fetch failed', { cause: refused });
    expect(new TransportError(request, 'network', { cause: viaFetch }).message).toBe(
      'GET /orders: network error (connect ECONNREFUSED 127.0.0.1:4000)',
    );
    const v6 = Object.assign(new Error('connect ECONNREFUSED ::1:4000'), {
      code: 'ECONNREFUSED',
      address: '::1',
      port: 4000,
    });
    const both = Object.assign(new AggregateError([v6, refused]), { code: 'ECONNREFUSED' });
    expect(describeNetworkFailure(new TypeError('fetch failed', { cause: both }))).toBe(
      'connect ECONNREFUSED ::1:4000, connect ECONNREFUSED 127.0.0.1:4000',
    );
    const hangUp = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(describeNetworkFailure(hangUp)).toBe('ECONNRESET socket hang up');
    expect(new TransportError(request, 'network').message).toBe('GET /orders: network error');
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

  it.each([
    ['pending', OAuthRequestPendingError, 'the OAuth request is not approved yet'],
    ['denied', OAuthRequestDeniedError, 'the user denied the OAuth request'],
    ['expired', OAuthRequestExpiredError, 'the OAuth request expired'],
  ] as const)('types a 401 naming an OAuth request %s by its class', (code, type, says) => {
    const body = { errors: { oauth_request_public_id: [code] } };
    const refused = errorFromResponse(401, details(body), {
      authPayload: 'OAuthDelegatedPayload',
      unauthorized: oauthRequestRefusal,
    });
    expect(refused).toBeInstanceOf(type);
    expect(refused).toBeInstanceOf(OAuthRequestRefusedError);
    // Still an AuthenticationError, so code that catches that goes on working.
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect(refused).toMatchObject({ status: 401, reason: code, possibleCauses: [] });
    expect(refused.message).toBe(
      `PUT /orders/1/cancel: ${says} (oauth_request_public_id: ${code})`,
    );
  });

  it('leaves a 401 naming a code it does not know an AuthenticationError', () => {
    const body = { errors: { oauth_request_public_id: ['revoked'] } };
    const refused = errorFromResponse(401, details(body), {
      authPayload: 'OAuthDelegatedPayload',
      unauthorized: oauthRequestRefusal,
    });
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect(refused).not.toBeInstanceOf(OAuthRequestRefusedError);
  });

  it('names an OAuth refusal only for the client that asks for it (the exchange client)', () => {
    const body = { errors: { oauth_request_public_id: ['denied'] } };
    const refused = errorFromResponse(401, details(body), { authPayload: 'OAuthDelegatedPayload' });
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect(refused).not.toBeInstanceOf(OAuthRequestRefusedError);
  });
});
