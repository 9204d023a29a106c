/** Faults mostly of the server's answers: statuses, fills, the ledger, fees and trades. */
import { Decimal } from 'decimal.js';
import type { Fault, ProxiedRequest, ProxiedResponse } from '../fault-proxy.js';
import {
  is,
  parse,
  type Row,
  status,
  tradesRead,
  withBody,
  withJson,
  withoutQuery,
} from './proxied.js';

/** A request of `operationId` whose decimal `field` the server reads rounded to 8 places. */
const roundedToEightPlaces = (operationId: string, field: string) => (request: ProxiedRequest) =>
  is(request, operationId)
    ? withBody(request, (body) => {
        const sent = body[field];
        return typeof sent === 'string'
          ? { ...body, [field]: new Decimal(sent).toDecimalPlaces(8).toFixed() }
          : body;
      })
    : request;

/** A decimal one unit of its last place more: "1.05" is "1.06", "0" is "1". */
function offInLastDigit(value: unknown): string {
  const amount = String(value);
  const places = amount.split('.')[1]?.length ?? 0;
  const unit = places === 0 ? '1' : `0.${'0'.repeat(places - 1)}1`;
  return new Decimal(amount).plus(unit).toFixed();
}

/** A close's answer with `field` twice what the server says: what half the trade held before. */
const doubledOnClose = (field: string) => (request: ProxiedRequest, response: ProxiedResponse) =>
  is(request, 'closeTrade') && response.status === 200
    ? withJson(response, (trade) => ({
        ...(trade as Row),
        [field]: new Decimal(String((trade as Row)[field])).times(2).toFixed(),
      }))
    : response;

/** The caller's executions (`GET /executions/me`) read as `change` makes them. */
const ownExecutions =
  (change: (fills: Row[]) => Row[]) => (request: ProxiedRequest, response: ProxiedResponse) =>
    is(request, 'listOwnExecutions') && response.status === 200
      ? withJson(response, (page) => ({
          ...(page as Row),
          models: change((page as Row).models as Row[]),
        }))
      : response;

/** `trade`'s close_pnl shown as `closed`, its pnl following it. */
const withClosePnl = (trade: Row, closed: Decimal): Row => ({
  close_pnl: closed.toFixed(),
  pnl: closed.plus(String(trade.open_pnl)).toFixed(),
});

/** `trade`'s open_pnl shown as `open`, its pnl following it. */
const withOpenPnl = (trade: Row, open: Decimal): Row => ({
  open_pnl: open.toFixed(),
  pnl: open.plus(String(trade.close_pnl)).toFixed(),
});

export const responseFaults: Fault[] = [
  {
    name: 'a 404 of edit turned into 200',
    covers: 'ORDER-EDIT-NOT-LIVE',
    response: status(404, 200, 'editOrder', 'editOrderByClientId'),
  },
  {
    name: 'a 404 of update_tpsl turned into 200',
    covers: 'ORDER-UPDATE-TPSL-NOT-LIVE',
    response: status(404, 200, 'updateOrderTpsl', 'updateOrderTpslByClientId'),
  },
  {
    name: 'a 404 of cancel turned into 200',
    covers: 'ORDER-CANCEL-NOT-LIVE',
    response: status(404, 200, 'cancelOrder', 'cancelOrderByClientId'),
  },
  {
    name: 'a 404 of cancel turned into 422',
    covers: 'STATUS-404-NOT-LIVE',
    alsoFails: ['ORDER-CANCEL-NOT-LIVE'],
    response: status(404, 422, 'cancelOrder', 'cancelOrderByClientId'),
  },
  {
    name: 'the loan book answers 203',
    covers: 'STATUS-200-SUCCESS',
    response: status(200, 203, 'getLoanBook'),
  },
  {
    name: 'intent_to_trade answers 200 instead of 202',
    covers: 'STATUS-202-TRANSACTION-CREATED',
    // Each row of the transaction table says response 202 as well.
    alsoFails: ['QE-TRADE-NO-METHOD', 'QE-TRADE-BOTH-METHODS', 'QE-TRADE-PARAMETER-MISSING'],
    response: status(202, 200, 'intentToTrade'),
  },
  {
    name: 'a consumed intent is fulfilled again',
    covers: 'INTENT-ONE-TO-ONE-CONSUMED',
    response: status(422, 202, 'intentToTrade'),
  },
  {
    name: "executions/me names the other side as the caller's",
    covers: 'FILL-SEEN-BY-EACH-SIDE',
    response: ownExecutions((fills) =>
      fills.map((fill) => ({ ...fill, my_side: fill.my_side === 'buy' ? 'sell' : 'buy' })),
    ),
  },
  {
    name: 'executions/me leaves out the fills where the caller was the maker',
    covers: 'FILL-SEEN-BY-EACH-SIDE',
    response: ownExecutions((fills) => fills.filter((fill) => fill.my_side === fill.taker_side)),
  },
  {
    name: 'the public executions name the other side as the taker',
    covers: 'FILL-SEEN-BY-EACH-SIDE',
    response: (request, response) =>
      is(request, 'listExecutions') && response.status === 200
        ? withJson(response, (page) => {
            const flip = (fill: Row) => ({
              ...fill,
              taker_side: fill.taker_side === 'buy' ? 'sell' : 'buy',
            });
            return Array.isArray(page)
              ? page.map(flip)
              : { ...(page as Row), models: ((page as Row).models as Row[]).map(flip) };
          })
        : response,
  },
  {
    name: 'an order read with details lists no fill',
    covers: 'FILL-IN-ORDER-DETAILS',
    response: (request, response) =>
      is(request, 'getOrder') && request.path.includes('with_details=1') && response.status === 200
        ? withJson(response, (order) => ({ ...(order as Row), executions: [] }))
        : response,
  },
  {
    name: 'executions from a timestamp cut the last second at the limit',
    covers: 'FILL-SINCE-WHOLE-SECONDS',
    response: (request, response) => {
      const limit = new URLSearchParams(request.path.split('?')[1]).get('limit');
      return is(request, 'listExecutions') && response.status === 200 && limit
        ? withJson(response, (fills) =>
            Array.isArray(fills) ? fills.slice(0, Number(limit)) : fills,
          )
        : response;
    },
  },
  {
    name: 'the balance history leaves out the fees of fills',
    covers: 'LEDGER-EXPLAINS-BALANCE',
    response: (request, response) =>
      is(request, 'listBalanceHistory') && response.status === 200
        ? withJson(response, (entries) =>
            Array.isArray(entries)
              ? entries.filter((entry) => (entry as Row).source_action !== 'trade_fee')
              : entries,
          )
        : response,
  },
  {
    name: "a trade entry's balance already has its fill's fee taken",
    covers: 'LEDGER-EXPLAINS-BALANCE',
    response: (request, response) =>
      is(request, 'listBalanceHistory') && response.status === 200
        ? withJson(response, (entries) => {
            if (!Array.isArray(entries)) return entries;
            const rows = entries as Row[];
            const feeOf = (trade: Row) =>
              rows.find(
                (entry) =>
                  entry.source_action === 'trade_fee' &&
                  entry.currency === trade.currency &&
                  entry.source_object_id === trade.source_object_id,
              );
            return rows.map((entry) => {
              const fee = entry.source_action === 'trade' ? feeOf(entry) : undefined;
              if (!fee) return entry;
              const balance = new Decimal(String(entry.balance)).plus(String(fee.amount));
              return { ...entry, balance: balance.toFixed() };
            });
          })
        : response,
  },
  {
    name: "an order's hold stays what it was when placed, whatever an edit changes",
    covers: 'RESERVED-IS-DETAILED',
    response: (() => {
      const placed = new Map<string, unknown>();
      return (request: ProxiedRequest, response: ProxiedResponse) =>
        is(request, 'getReservedBalanceDetails') && response.status === 200
          ? withJson(response, (body) => ({
              ...(body as Row),
              details: (((body as Row).details as Row[] | undefined) ?? []).map((detail) => {
                if (detail.holder_type !== 'order') return detail;
                const id = String(detail.id);
                if (!placed.has(id)) placed.set(id, detail.amount);
                return { ...detail, amount: placed.get(id) };
              }),
            }))
          : response;
    })(),
  },
  {
    name: 'the reserved balance details leave out the orders',
    covers: 'RESERVED-IS-DETAILED',
    response: (request, response) =>
      is(request, 'getReservedBalanceDetails') && response.status === 200
        ? withJson(response, (body) => ({
            ...(body as Row),
            details: ((body as Row).details as Row[]).filter(
              (detail) => detail.holder_type !== 'order',
            ),
          }))
        : response,
  },
  {
    name: 'update_tpsl drops the margin fields',
    covers: 'ORDER-UPDATE-TPSL-LIVE',
    response: (request, response) =>
      is(request, 'updateOrderTpsl', 'updateOrderTpslByClientId') && response.status === 200
        ? withJson(response, (order) => {
            const { margin_used, margin_interest, unwound_trade_leverage_level, ...rest } =
              order as Row;
            return rest;
          })
        : response,
  },
  {
    name: 'a fee estimate off in its last digit',
    covers: 'FEE-ESTIMATE-MATCHES-FILL',
    response: (request, response) =>
      is(request, 'estimateFee') && response.status === 200
        ? withJson(response, (estimate) => {
            const options = ((estimate as Row).fee_options as Row).default as Row[];
            const nudged = options.map((option) => ({
              ...option,
              amount: offInLastDigit(option.amount),
            }));
            return { ...(estimate as Row), fee_options: { default: nudged } };
          })
        : response,
  },
  {
    name: 'a limit order that crosses the book is estimated as a maker',
    covers: 'FEE-ESTIMATE-MATCHES-FILL',
    request: (request) =>
      is(request, 'estimateFee')
        ? withBody(request, (body) =>
            body.order_type === 'limit' ? { ...body, order_type: 'limit_post_only' } : undefined,
          )
        : request,
  },
  {
    name: "the fee tier's volume counts half of each fill's value",
    covers: 'FEE-TIER-VOLUME-FOLLOWS-FILLS',
    response: (request, response) =>
      is(request, 'getFeeTier') && response.status === 200
        ? withJson(response, (tier) => ({
            ...(tier as Row),
            currency_pair_volume: new Decimal(String((tier as Row).currency_pair_volume))
              .div(2)
              .toFixed(),
          }))
        : response,
  },
  {
    name: "the partner's transaction list counts one more than it lists",
    covers: 'PARTNER-LIST-FILTERS',
    response: (request, response) =>
      is(request, 'listPartnerTransactions') && response.status === 200
        ? withJson(response, (body) => {
            const payload = (body as Row).payload as Row;
            const selection = payload.selection as Row;
            return {
              ...(body as Row),
              payload: {
                ...payload,
                selection: { ...selection, count: Number(selection.count) + 1 },
              },
            };
          })
        : response,
  },
  {
    name: "an order's fee off in its last digit",
    covers: 'ORDER-FEE-SUMS-CHARGES',
    response: (request, response) =>
      is(request, 'getOrder') && response.status === 200
        ? withJson(response, (order) => ({
            ...(order as Row),
            order_fee: offInLastDigit((order as Row).order_fee),
          }))
        : response,
  },
  // --- Trades ---
  {
    name: 'a margin change finer than its currency is rounded to it and taken',
    covers: 'TRADE-MARGIN-OFF-STEP',
    // The 1 taken stays added: taking back 2 of the next 1 added is then taken too.
    alsoFails: ['TRADE-MARGIN-ADJUSTED'],
    request: roundedToEightPlaces('adjustTradeMargin', 'delta'),
  },
  {
    name: 'the fee rules list a taker rate other than the one a fill is charged',
    covers: 'TRADE-CLOSE-FEE',
    response: (request, response) =>
      is(request, 'listUserFees') && response.status === 200
        ? withJson(response, (rules) =>
            (rules as Row[]).map((rule) =>
              (rule.conditions as Row | undefined)?.maker_taker === 'taker'
                ? {
                    ...rule,
                    charge_value: new Decimal(String(rule.charge_value)).times(2).toFixed(),
                  }
                : rule,
            ),
          )
        : response,
  },
  {
    name: 'a partial close releases none of the margin',
    covers: 'TRADE-CLOSE-PARTIAL',
    response: doubledOnClose('margin_used'),
  },
  {
    name: 'a partial close repays none of the loans',
    covers: 'TRADE-CLOSE-PARTIAL',
    response: doubledOnClose('daily_interest'),
  },
  {
    name: 'adjust_margin takes back more than was added, up to what was',
    covers: 'TRADE-MARGIN-ADJUSTED',
    request: (request) =>
      is(request, 'adjustTradeMargin')
        ? withBody(request, (body) => (body.delta === '-2' ? { delta: '-1' } : undefined))
        : request,
  },
  {
    name: "the reserved balance details leave out an open trade's margin",
    covers: 'TRADE-MARGIN-ADJUSTED',
    response: (request, response) =>
      is(request, 'getReservedBalanceDetails') && response.status === 200
        ? withJson(response, (body) => ({
            ...(body as Row),
            details: (((body as Row).details as Row[] | undefined) ?? []).filter(
              (detail) => detail.holder_type !== 'position',
            ),
          }))
        : response,
  },
  {
    name: 'adjust_margin answers the liquidation price the trade had before',
    covers: 'TRADE-MARGIN-ADJUSTED',
    response: (() => {
      const listed = new Map<string, unknown>();
      return (request: ProxiedRequest, response: ProxiedResponse) => {
        if (is(request, 'listTrades') && response.status === 200) {
          const models = (parse(response.body) as Row | undefined)?.models;
          for (const trade of (Array.isArray(models) ? models : []) as Row[]) {
            listed.set(String(trade.id), trade.liquidation_price);
          }
          return response;
        }
        return is(request, 'adjustTradeMargin') && response.status === 200
          ? withJson(response, (trade) => ({
              ...(trade as Row),
              liquidation_price: listed.get(String((trade as Row).id)) ?? null,
            }))
          : response;
      };
    })(),
  },
  {
    name: 'a close finer than the step is rounded to it and taken',
    covers: 'TRADE-CLOSE-OFF-STEP',
    // The close taken leaves half the trade where the scenario's next closes expect all of it.
    alsoFails: ['TRADE-CLOSE-PARTIAL', 'TRADE-CLOSE-FEE', 'TRADE-CLOSE-ALL'],
    request: roundedToEightPlaces('closeTrade', 'closed_quantity'),
  },
  {
    name: "an order's trades show a quantity other than what the order filled",
    covers: 'TRADE-OPENED-BY-MARGIN-FILL',
    response: (request, response) =>
      is(request, 'listOrderTrades') && response.status === 200
        ? withJson(response, (trades) =>
            (trades as Row[]).map((trade) => ({
              ...trade,
              quantity: `${String(trade.quantity)}${String(trade.quantity).includes('.') ? '1' : '.1'}`,
            })),
          )
        : response,
  },
  {
    name: "the trades' close_fee off in its last digit",
    covers: 'TRADE-CLOSE-FEE',
    response: tradesRead((trade) => ({ close_fee: offInLastDigit(trade.close_fee) })),
  },
  {
    name: 'a query parameter given twice is read as its first value',
    covers: 'INPUT-REPEATED-QUERY',
    request: (request) => {
      if (!is(request, 'listExecutions')) return request;
      const [path, query = ''] = request.path.split('?');
      const first = new URLSearchParams();
      for (const [name, value] of new URLSearchParams(query)) {
        if (!first.has(name)) first.append(name, value);
      }
      return { ...request, path: `${path}?${first}` };
    },
  },
  {
    name: 'a body key given twice is read as its last value',
    covers: 'INPUT-REPEATED-KEY',
    request: (request) => {
      if (!is(request, 'createOrder') || !request.body) return request;
      try {
        return { ...request, body: JSON.stringify(JSON.parse(request.body)) };
      } catch {
        return request;
      }
    },
  },
  {
    name: 'a body key given twice refused without saying so',
    covers: 'INPUT-REPEATED-KEY',
    response: (request, response) =>
      is(request, 'createOrder') && response.status === 422
        ? withJson(response, (body) => {
            const errors = (body as Row).errors as Record<string, unknown> | undefined;
            const codes = errors?.quantity;
            if (!Array.isArray(codes) || !codes.includes('given_more_than_once')) return body;
            return { ...(body as Row), errors: { ...errors, quantity: ['invalid'] } };
          })
        : response,
  },
  {
    name: "the caller's margin fills' pnl off in its last digit",
    covers: 'TRADE-CLOSE-PNL',
    response: ownExecutions((fills) =>
      fills.map((fill) =>
        fill.pnl === undefined ? fill : { ...fill, pnl: offInLastDigit(fill.pnl) },
      ),
    ),
  },
  {
    name: 'a trade closed in part shows its open_pnl alone as its pnl',
    covers: 'TRADE-CLOSE-PARTIAL',
    response: (request, response) =>
      is(request, 'closeTrade') && response.status === 200
        ? withJson(response, (trade) =>
            (trade as Row).status === 'open'
              ? { ...(trade as Row), pnl: String((trade as Row).open_pnl) }
              : trade,
          )
        : response,
  },
  {
    name: 'a partial close leaves close_quantity as it was',
    covers: 'TRADE-CLOSE-PARTIAL',
    response: (request, response) =>
      is(request, 'closeTrade') && response.status === 200
        ? withJson(response, (trade) => ({ ...(trade as Row), close_quantity: '0' }))
        : response,
  },
  {
    name: 'close_all closes both sides whatever side is asked for',
    covers: 'TRADE-CLOSE-ALL',
    request: (request) => (is(request, 'closeAllTrades') ? withBody(request, () => ({})) : request),
  },
  {
    name: 'close_all closes the other side than the one asked for',
    covers: 'TRADE-CLOSE-ALL',
    request: (request) =>
      is(request, 'closeAllTrades')
        ? withBody(request, (body) => ({ side: body.side === 'long' ? 'short' : 'long' }))
        : request,
  },
  {
    name: 'close_all with no side closes only the longs',
    covers: 'TRADE-CLOSE-ALL-NO-SIDE',
    request: (request) => {
      if (!is(request, 'closeAllTrades')) return request;
      const sent = parse(request.body) as Row | undefined;
      if (typeof sent?.side === 'string') return request;
      const headers = { ...request.headers, 'content-type': 'application/json' };
      return { ...request, headers, body: JSON.stringify({ side: 'long' }) };
    },
  },
  {
    name: 'the balance history ignores its time filters',
    covers: 'LEDGER-EXPLAINS-BALANCE',
    request: withoutQuery('listBalanceHistory', 'timestamp_gte', 'timestamp_lte'),
  },
  {
    name: 'GET /trades ignores its side filter',
    covers: 'TRADE-LIST-FILTERS',
    request: withoutQuery('listTrades', 'side'),
  },
  {
    name: "a short's close pays what a long's would",
    covers: 'TRADE-CLOSE-PNL-AT-PRICE',
    response: tradesRead((trade) =>
      trade.status === 'closed' && trade.side === 'short'
        ? withClosePnl(trade, new Decimal(String(trade.close_pnl)).neg())
        : {},
    ),
  },
  {
    name: "a base-funded trade's close P&L divided by its open price, not its close price",
    covers: 'TRADE-CLOSE-PNL-AT-PRICE',
    response: tradesRead((trade) =>
      trade.status === 'closed' &&
      String(trade.currency_pair_code).startsWith(String(trade.funding_currency))
        ? withClosePnl(
            trade,
            new Decimal(String(trade.close_pnl))
              .times(String(trade.close_price))
              .div(String(trade.open_price)),
          )
        : {},
    ),
  },
  {
    name: "adjust_margin moves a short's liquidation price towards the market",
    covers: 'TRADE-MARGIN-ADJUSTED',
    response: (request, response) =>
      is(request, 'adjustTradeMargin') && response.status === 200
        ? withJson(response, (trade) => {
            const shown = trade as Row;
            if (shown.side !== 'short' || shown.liquidation_price === null) return shown;
            const open = new Decimal(String(shown.open_price));
            const mirrored = open.times(2).minus(String(shown.liquidation_price));
            return { ...shown, liquidation_price: mirrored.toFixed() };
          })
        : response,
  },
  {
    name: "a base-funded trade's open_pnl left in the quote currency",
    covers: 'TRADE-OPEN-PNL-AT-MARK',
    testControl: true,
    // Not divided by the mark: about the open price times what it should be.
    response: tradesRead((trade) =>
      String(trade.currency_pair_code).startsWith(String(trade.funding_currency))
        ? withOpenPnl(trade, new Decimal(String(trade.open_pnl)).times(String(trade.open_price)))
        : {},
    ),
  },
  {
    name: "a short's open_pnl signed as a long's",
    covers: 'TRADE-OPEN-PNL-AT-MARK',
    testControl: true,
    response: tradesRead((trade) =>
      trade.side === 'short' ? withOpenPnl(trade, new Decimal(String(trade.open_pnl)).neg()) : {},
    ),
  },
];
