/**
 * What each operation of the specs must answer, typed from the contract: a handler keyed by an
 * operationId returns one of that operation's documented replies with its documented body, so
 * a view that forgets a required field, or a status the spec does not document, does not
 * compile.
 */
import type { operations as ExchangeOperations } from '@exchange-kit/contract/exchange';
import type { operations as PartnerOperations } from '@exchange-kit/contract/partner';
import type { ExchangeContext, RequestContext } from './types.js';

type JsonBody<Response> = Response extends { content: { 'application/json': infer Body } }
  ? Body
  : undefined;

/** The documented success replies of an operation (errors are thrown, not returned). */
export type DocumentedReply<Operation> = Operation extends { responses: infer Responses }
  ? {
      [Status in keyof Responses & number]: Status extends 200 | 201 | 202 | 204
        ? { status: Status; body: JsonBody<Responses[Status]>; headers?: Record<string, string> }
        : never;
    }[keyof Responses & number]
  : never;

/** The handler of an exchange operation decided on the state in memory. */
export type ExchangeHandlerOf<Id extends keyof ExchangeOperations> = (
  context: ExchangeContext,
) => DocumentedReply<ExchangeOperations[Id]>;

/** The handler of an exchange operation that runs in a database transaction of its own. */
export type ExchangeApiHandlerOf<Id extends keyof ExchangeOperations> = (
  context: RequestContext,
) => Promise<DocumentedReply<ExchangeOperations[Id]>>;

/** The handler of a partner operation, each run in a database transaction of its own. */
export type PartnerHandlerOf<Id extends keyof PartnerOperations> = (
  context: RequestContext,
) => Promise<DocumentedReply<PartnerOperations[Id]>>;
