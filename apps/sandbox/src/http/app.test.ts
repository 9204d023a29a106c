import {
  zQuickExchangeError,
  zQuickExchangeValidationError,
} from '@exchange-kit/contract/partner/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'zod/mini';
import type { RunningSandbox } from '../server.js';
import { startTestSandbox } from '../test-support.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

const post = (path: string, body: unknown) =>
  fetch(`${sandbox.partnerUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('error shapes and browsers', () => {
  it('answers a refused Quick Exchange call in the envelope the partner spec documents', async () => {
    const unknownKey = await post('/api/v1/session', { public_api_key: 'pk_nobody' });
    expect(unknownKey.status).toBe(422);
    const refusal = await unknownKey.json();
    expect(parse(zQuickExchangeValidationError, refusal)).toMatchObject({
      success: false,
      errors: { public_api_key: expect.any(Array) },
    });
    expect(refusal.message).toMatch(/\S/);

    const missing = await fetch(
      `${sandbox.partnerUrl}/api/v1/transaction/status/3f6c1a9e-2b7d-4c1e-9a55-0d2f7e8b1c44`,
    );
    expect(missing.status).toBe(404);
    expect(parse(zQuickExchangeError, await missing.json())).toMatchObject({ success: false });
  });

  it('keeps the exchange error shapes on exchange paths', async () => {
    const response = await fetch(`${sandbox.exchangeUrl}/ir_ladders/NOPE`);
    expect(response.status).toBe(404);
    const body = await response.json();
    expect(body).toEqual({ message: expect.any(String) });
  });

  it('lets a page on another origin call it: preflight and CORS headers', async () => {
    const preflight = await fetch(`${sandbox.partnerUrl}/api/v1/session`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://127.0.0.1:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('content-type');
    const answer = await post('/api/v1/session', {
      public_api_key: sandbox.credentials.publicApiKey,
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  });
});
