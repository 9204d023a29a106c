/** The handlers of the exchange operations decided on the state in memory. */
import type { operations as ExchangeOperations } from '@exchange-kit/contract/exchange';
import type { CallContext, DocumentedReply, Reply } from '../domain/operation.js';
import type { Journal } from './journal.js';

/** A call decided on the exchange state in memory; its changes are stored before it is answered. */
export interface ExchangeContext<Body = unknown> extends CallContext<Body> {
  journal: Journal;
}

/** Runs without waiting on anything: one call at a time decides on the exchange state. */
export type ExchangeHandler = (context: ExchangeContext) => Reply;

export type ExchangeHandlers = Record<string, ExchangeHandler>;

/** The handler of an exchange operation decided on the state in memory. */
export type ExchangeHandlerOf<Id extends keyof ExchangeOperations> = (
  context: ExchangeContext,
) => DocumentedReply<ExchangeOperations[Id]>;
