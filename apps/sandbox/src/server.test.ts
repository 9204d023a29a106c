import exchangeSpec from '@exchange-kit/spec/exchange.openapi.json' with { type: 'json' };
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from './server.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(() => sandbox.close());

describe('sandbox server', () => {
  it('listens on loopback only', () => {
    expect(sandbox.exchangeUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('serves the bundled exchange spec it implements', async () => {
    const response = await fetch(`${sandbox.exchangeUrl}/openapi/exchange.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as typeof exchangeSpec;
    expect(Object.keys(body.paths)).toEqual(Object.keys(exchangeSpec.paths));
  });

  it('answers an unknown route with a 404 in the message error shape', async () => {
    const response = await fetch(`${sandbox.exchangeUrl}/nowhere`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'No route for GET /nowhere' });
  });
});
