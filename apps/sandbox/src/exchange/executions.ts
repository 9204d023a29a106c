import type { components } from '@exchange-kit/contract/exchange';
import { type ExchangeHandlerOf, type Handlers, later } from '../handling/operation.js';
import type { OwnFill } from '../state/history.js';
import type { Fill } from '../state/records.js';
import { actingUser } from './caller.js';
import { executionView } from './order-view.js';
import { loadProduct } from './orders.js';
import { pageFrom } from './paging.js';

type OwnExecution = components['schemas']['OwnExecution'];

/**
 * A fill as the owner of `order` sees it: on margin, with what it realized for that side;
 * with details, the order it filled.
 */
export function ownView(fill: Fill, order: OwnFill['order'], withDetails: boolean): OwnExecution {
  const view: OwnExecution = {
    ...executionView(fill),
    my_side: order.side,
    target: order.tradingType === 'spot' ? 'spot' : 'margin',
  };
  const pnl = order.id === fill.takerOrderId ? fill.takerPnl : fill.makerPnl;
  if (pnl !== null) view.pnl = pnl.toFixed();
  if (withDetails) {
    view.order_id = order.id;
    view.client_order_id = order.clientOrderId;
  }
  return view;
}

/** Paged and newest first; with `timestamp`, every fill from that second on, oldest first. */
const listExecutions: ExchangeHandlerOf<'listExecutions'> = ({ journal, query }) => {
  const { id } = loadProduct(journal, query.product_id);
  const { limit, page, timestamp } = query;
  if (timestamp !== undefined) {
    return later(async (history) => {
      const fills = await history.productFillsSince(id, timestamp, limit);
      return { status: 200, body: fills.map(executionView) };
    });
  }
  return later((history) =>
    // The page and its total of one moment: memory's count runs ahead of the stored rows.
    history.together(async (now) => {
      const fills = await now.productFills(id, (page - 1) * limit, limit);
      const total = await now.countProductFills(id);
      return { status: 200, body: pageFrom(total, fills.map(executionView), limit, page) };
    }),
  );
};

const listOwnExecutions: ExchangeHandlerOf<'listOwnExecutions'> = ({ journal, caller, query }) => {
  const { id } = loadProduct(journal, query.product_id);
  const userId = actingUser(caller);
  const { limit, page } = query;
  const withDetails = query.with_details === 1;
  return later(async (history) => {
    const own = await history.ownFills(userId, id, (page - 1) * limit, limit);
    const models = own.rows.map(({ fill, order }) => ownView(fill, order, withDetails));
    return { status: 200, body: pageFrom(own.total, models, limit, page) };
  });
};

export const executionHandlers = { listExecutions, listOwnExecutions } satisfies Handlers;
