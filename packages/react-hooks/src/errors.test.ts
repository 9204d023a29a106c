import {
  AuthenticationError,
  NotFoundError,
  RateLimitedError,
  ResponseValidationError,
  ServerError,
  TransportError,
  ValidationError,
} from '@exchange-kit/partner-client';
import { describe, expect, it } from 'vitest';
import { errorMessage } from './errors.js';

const request = { method: 'POST', path: '/api/v1/transaction/intent_to_trade' };
const answer = (body: unknown, headers: HeadersInit = {}) => ({
  request,
  body,
  headers: new Headers(headers),
});

describe('errorMessage', () => {
  it("shows the server's own message, else the fields it names", () => {
    expect(
      errorMessage(new ValidationError(422, answer({ message: 'BTC/XYZ is not traded' }))),
    ).toBe('BTC/XYZ is not traded');
    expect(
      errorMessage(
        new ValidationError(
          422,
          answer({
            message: 'Validation failed',
            errors: { 'terms_of_service.accepted': ['must_be_accepted'] },
          }),
        ),
      ),
    ).toBe('Please check terms of service accepted: must be accepted.');
    expect(errorMessage(new ValidationError(400, answer('')))).toBe(
      'The request was not accepted.',
    );
  });

  it('explains every other typed error without the method and path of the call', () => {
    const messages = [
      new NotFoundError(answer({ message: 'Transaction not found' })),
      new NotFoundError(answer(null)),
      new AuthenticationError(answer('API Authentication failed')),
      new RateLimitedError(answer({ message: 'API rate limit exceeded. Please retry after 300s' })),
      new RateLimitedError(answer(null)),
      new TransportError(request, 'timeout'),
      new TransportError(request, 'network'),
      new ServerError(503, answer(null)),
      new ResponseValidationError(request, 202, [{ pointer: '/payload', message: 'Required' }]),
    ].map(errorMessage);
    expect(messages).toEqual([
      'Transaction not found',
      'It could not be found; it may have expired.',
      'The exchange did not accept this request. Reload the page to start again.',
      'Too many requests. Please try again in 300 s.',
      'Too many requests. Please wait a moment and try again.',
      'The exchange took too long to answer. Please try again.',
      'The exchange could not be reached. Check your connection and try again.',
      'The exchange is unavailable. Please try again later.',
      'The exchange sent an unexpected answer.',
    ]);
    for (const message of messages) expect(message).not.toContain('/api/v1');
  });

  it('passes other errors through and says nothing for no error', () => {
    expect(errorMessage(new Error('Backend error'))).toBe('Backend error');
    expect(errorMessage(null)).toBeUndefined();
    expect(errorMessage(undefined)).toBeUndefined();
  });
});
