import type { ExchangeHandlerOf, Handlers } from '../handling/operation.js';
import { pageOf } from './paging.js';

/**
 * Not modelled: a margin position here borrows nothing (its margin is held, never lent from a
 * loan bid), so no loan is ever made and every user's list is empty. Lending would match a
 * margin fill's borrowed quote currency against the live bids, rate ascending, and accrue
 * interest by the sandbox's clock; until then `PUT /loans/{id}` is not served either.
 */
const listLoans: ExchangeHandlerOf<'listLoans'> = ({ query }) => ({
  status: 200,
  body: pageOf([], query.limit, query.page, (loan: never) => loan),
});

export const loanHandlers = { listLoans } satisfies Handlers;
