import { describe, expectTypeOf, it } from 'vitest';
import type { Call, PerCallOptions } from './client.js';

// Operations in the shape openapi-typescript writes them.
interface Operations {
  getThing: {
    parameters: { query?: { q?: string }; path: { thing_id: string } };
    requestBody?: never;
    responses: {
      200: { content: { 'application/json': { id: string; levels: [string, string][] } } };
    };
  };
  listThings: {
    parameters: { query?: { page?: number }; path?: never };
    requestBody?: never;
    responses: { 200: { content: { 'application/json': { models: string[] } } } };
  };
  createThing: {
    parameters: { query?: never; path?: never };
    requestBody: { content: { 'application/json': { name: string } } };
    responses: { 200: { content: { 'application/json': { id: string } } } };
  };
  cancelThings: {
    parameters: { query?: never; path?: never };
    requestBody?: { content: { 'application/json': { side?: 'buy' | 'sell' } } };
    responses: { 200: { content: { 'application/json': { ids: string[] } } } };
  };
  startThing: {
    parameters: { query?: never; path?: never };
    requestBody: { content: { 'application/json': { name: string } } };
    responses: {
      202: { content: { 'application/json': { started: boolean } } };
      422: { content: { 'application/json': { message: string } } };
    };
  };
  forgetThing: {
    parameters: { query?: never; path?: never };
    requestBody?: never;
    responses: { 204: { content?: never } };
  };
}
declare const call: Call<Operations>;

describe('call', () => {
  it('answers the success type of the operation, tuples kept', () => {
    expectTypeOf(call('getThing', { path: { thing_id: 'a' } })).resolves.toEqualTypeOf<{
      id: string;
      levels: [string, string][];
    }>();
    expectTypeOf(call('listThings')).resolves.toEqualTypeOf<{ models: string[] }>();
  });

  it('answers the body of a 202, and nothing for an answer without one', () => {
    expectTypeOf(call('startThing', { body: { name: 'a' } })).resolves.toEqualTypeOf<{
      started: boolean;
    }>();
    expectTypeOf(call('forgetThing')).resolves.toEqualTypeOf<undefined>();
  });

  it('asks for what the operation requires, and only for that', () => {
    void call('listThings', { query: { page: 2 } });
    void call('cancelThings');
    void call('cancelThings', { body: { side: 'buy' } });
    void call('createThing', { body: { name: 'a' } });
    // @ts-expect-error the path parameters are required
    void call('getThing');
    // @ts-expect-error a parameter of another name
    void call('getThing', { path: { id: 'a' } });
    // @ts-expect-error no body on a get
    void call('getThing', { path: { thing_id: 'a' }, body: {} });
    // @ts-expect-error a query the operation does not take
    void call('listThings', { query: { page: 'two' } });
    // @ts-expect-error the body is required
    void call('createThing');
    // @ts-expect-error an operation the table does not have
    void call('deleteThing');
  });
});

describe('per-call options', () => {
  it('come last, after the input, which stays optional where it was', () => {
    const signal = new AbortController().signal;
    void call('listThings', undefined, { signal });
    void call('listThings', { query: { page: 1 } }, { timeoutMs: 500, retry: false });
    void call('getThing', { path: { thing_id: 'a' } }, { retry: { retries: 0 } });
    void call('createThing', { body: { name: 'a' } }, {});
    // @ts-expect-error the input still comes first when the operation requires one
    void call('createThing', undefined, { signal });
    // @ts-expect-error an option no call takes
    void call('listThings', {}, { timeout: 5 });
    // @ts-expect-error retry is options or false
    void call('listThings', {}, { retry: true });
  });

  it('are the documented shape', () => {
    expectTypeOf<PerCallOptions>().toEqualTypeOf<{
      signal?: AbortSignal | undefined;
      timeoutMs?: number | undefined;
      retry?: import('./transport.js').RetryOptions | false | undefined;
    }>();
  });
});
