/** The handlers of the exchange operations decided on the state in memory. */
import type { operations as ExchangeOperations } from '@exchange-kit/contract/exchange';
import type {
  CallContext,
  CallInput,
  DocumentedReply,
  ExchangeInput,
  Reply,
  UntypedInput,
} from '../domain/operation.js';
import type { Journal } from './journal.js';

/** A call decided on the exchange state in memory; its changes are stored before it is answered. */
export interface ExchangeContext<Input extends CallInput = UntypedInput>
  extends CallContext<Input> {
  journal: Journal;
}

/** Runs without waiting on anything: one call at a time decides on the exchange state. */
export type ExchangeHandler = {
  // A method, so that a handler typed for one operation's input fits (see Handler).
  handle(context: ExchangeContext<CallInput>): Reply;
}['handle'];

export type ExchangeHandlers = Record<string, ExchangeHandler>;

/** The handler of an exchange operation decided on the state in memory. */
export type ExchangeHandlerOf<Id extends keyof ExchangeOperations & string> = (
  context: ExchangeContext<ExchangeInput<Id>>,
) => DocumentedReply<ExchangeOperations[Id]>;
