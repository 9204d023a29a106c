/**
 * Faults of margin trading: the trading account's figures, and what a move of the mark price
 * closes.
 */
import { Decimal } from 'decimal.js';
import type { Fault, ProxiedRequest, ProxiedResponse } from '../fault-proxy.js';
import { is, pathname, type Row, tradesRead, withBody, withJson } from './proxied.js';

/** A trading account read with its figures rewritten from what the server would answer. */
const tradingAccountRead =
  (rewrite: (account: Row) => Row) => (request: ProxiedRequest, response: ProxiedResponse) =>
    is(request, 'getTradingAccount') && response.status === 200
      ? withJson(response, (account) => ({ ...(account as Row), ...rewrite(account as Row) }))
      : response;

/** Trading accounts, read and listed, rewritten alike: the list shows what a read does. */
const tradingAccounts =
  (rewrite: (account: Row) => Row) => (request: ProxiedRequest, response: ProxiedResponse) => {
    if (response.status !== 200) return response;
    const change = (account: Row) => ({ ...account, ...rewrite(account) });
    if (is(request, 'getTradingAccount')) return withJson(response, (a) => change(a as Row));
    if (is(request, 'listTradingAccounts')) {
      return withJson(response, (accounts) => (accounts as Row[]).map(change));
    }
    return response;
  };

const less = (value: unknown, by: Decimal.Value) => new Decimal(String(value)).minus(by).toFixed();

export const tradingAccountFaults: Fault[] = [
  {
    name: "a trading account's position counts its shorts as longs",
    covers: 'TRADING-ACCOUNT-FOLLOWS-POSITIONS',
    response: (() => {
      // The open shorts the caller's trades were last read with, by trade id.
      const shorts = new Map<string, { productId: string; open: Decimal }>();
      const accounts = tradingAccounts((account) => {
        const of = [...shorts.values()].filter((s) => s.productId === String(account.product_id));
        const short = of.reduce((total, each) => total.plus(each.open), new Decimal(0));
        return { position: short.times(2).plus(String(account.position)).toFixed() };
      });
      const noteShorts = tradesRead((trade) => {
        const id = String(trade.id);
        if (trade.side === 'short' && trade.status === 'open') {
          const open = new Decimal(String(trade.open_quantity));
          shorts.set(id, { productId: String(trade.product_id), open });
        } else {
          shorts.delete(id);
        }
        return {};
      });
      return (request: ProxiedRequest, response: ProxiedResponse) =>
        accounts(request, noteShorts(request, response));
    })(),
  },
  {
    name: "a trading account's margin_percent is a percentage, not a ratio",
    covers: 'TRADING-ACCOUNT-FOLLOWS-POSITIONS',
    response: tradingAccounts((account) => ({
      margin_percent: new Decimal(String(account.margin_percent)).times(100).toFixed(),
    })),
  },
  {
    name: "a trading account's balance is the free balance, its margin taken twice",
    covers: 'TRADING-ACCOUNT-FOLLOWS-POSITIONS',
    response: tradingAccounts((account) => ({
      balance: less(account.balance, String(account.margin)),
      equity: less(account.equity, String(account.margin)),
      free_margin: less(account.free_margin, String(account.margin)),
    })),
  },
  {
    name: "a trading account's margin leaves out its open trades",
    covers: 'TRADING-ACCOUNT-FOLLOWS-POSITIONS',
    response: tradingAccountRead((account) => ({ margin: '0', free_margin: account.equity })),
  },
  {
    name: "a trading account's equity leaves out the P&L at the mark price",
    covers: 'TRADING-ACCOUNT-FOLLOWS-POSITIONS',
    response: tradingAccountRead((account) => ({
      equity: account.balance,
      free_margin: new Decimal(String(account.balance)).minus(String(account.margin)).toFixed(),
    })),
  },
  {
    name: 'the trading accounts are listed without the P&L at the mark price',
    covers: 'TRADING-ACCOUNT-FOLLOWS-POSITIONS',
    response: (request, response) =>
      is(request, 'listTradingAccounts') && response.status === 200
        ? withJson(response, (accounts) =>
            (accounts as Row[]).map((account) => ({
              ...account,
              pnl: '0',
              equity: account.balance,
            })),
          )
        : response,
  },
  {
    name: 'a trading account reads leverage level 2 whatever it was set to',
    covers: 'TRADING-ACCOUNT-FOLLOWS-POSITIONS',
    response: tradingAccountRead(() => ({ leverage_level: 2 })),
  },
];

const isMarkMove = (request: ProxiedRequest) =>
  request.method === 'POST' && /^\/test\/products\/[^/]+\/mark_price$/.test(pathname(request));

/** What the mark price closes, moved through the sandbox's test control. */
export const markFaults: Fault[] = [
  {
    name: 'a mark price that reaches a stop loss closes nothing',
    covers: 'TRADE-STOP-LOSS-AT-MARK',
    testControl: true,
    request: (request) =>
      isMarkMove(request)
        ? { status: 200, headers: { 'content-type': 'application/json' }, body: request.body }
        : request,
  },
  {
    name: "an order's trades are only the one its trade_id names",
    covers: 'TRADE-ORDER-EVERY-TRADE',
    testControl: true,
    response: (request, response) =>
      is(request, 'listOrderTrades') && response.status === 200
        ? withJson(response, (trades) => (trades as Row[]).slice(-1))
        : response,
  },
  {
    name: 'the mark is taken 3% under the price sent, so a long is liquidated early',
    covers: 'TRADE-LIQUIDATED-AT-MARK',
    testControl: true,
    request: (request) =>
      isMarkMove(request)
        ? withBody(request, (body) => ({
            price: new Decimal(String(body.price)).times('0.97').toDecimalPlaces(8).toFixed(),
          }))
        : request,
  },
  {
    name: "a long's liquidation price shown a tick above where a mark liquidates it",
    covers: 'TRADE-LIQUIDATED-AT-MARK',
    testControl: true,
    response: tradesRead((trade) =>
      trade.status === 'open' && trade.side === 'long' && trade.liquidation_price !== null
        ? { liquidation_price: new Decimal(String(trade.liquidation_price)).plus(1).toFixed() }
        : {},
    ),
  },
  {
    name: 'a stop loss set on a short is dropped',
    covers: 'TRADE-STOP-LOSS-AT-MARK',
    testControl: true,
    ...(() => {
      const shorts = new Set<string>();
      const noteShorts = tradesRead((trade) => {
        if (trade.side === 'short') shorts.add(String(trade.id));
        return {};
      });
      return {
        response: noteShorts,
        request: (request: ProxiedRequest) => {
          const id = /^\/trades\/([^/]+)$/.exec(pathname(request))?.[1];
          return is(request, 'updateTrade') && id !== undefined && shorts.has(id)
            ? withBody(request, () => ({ trade: {} }))
            : request;
        },
      };
    })(),
  },
  {
    name: 'the maintenance margin shown is nine tenths of the margin, not half',
    covers: 'TRADE-OPENED-BY-MARGIN-FILL',
    response: tradesRead((trade) =>
      trade.status === 'open'
        ? { maintenance_margin: new Decimal(String(trade.margin_used)).times('0.9').toFixed() }
        : {},
    ),
  },
  {
    name: "a short's liquidation price shown a tick below where a mark liquidates it",
    covers: 'TRADE-LIQUIDATED-AT-MARK',
    testControl: true,
    response: tradesRead((trade) =>
      trade.status === 'open' && trade.side === 'short' && trade.liquidation_price !== null
        ? { liquidation_price: new Decimal(String(trade.liquidation_price)).minus(1).toFixed() }
        : {},
    ),
  },
  {
    name: 'margin is taken back from a trade the mark would then liquidate',
    covers: 'TRADE-MARGIN-KEPT-AT-MARK',
    testControl: true,
    response: (request, response) =>
      is(request, 'adjustTradeMargin') &&
      response.status === 422 &&
      response.body.includes('would_be_liquidated')
        ? { ...response, status: 200, body: '{}' }
        : response,
  },
  {
    name: 'a liquidation price shown a hundredth beyond where the mark liquidates the trade',
    covers: 'TRADE-LIQUIDATED-AT-MARK',
    testControl: true,
    // A mark moved to it still liquidates: only what it stands for tells it wrong.
    response: tradesRead((trade) =>
      trade.status === 'open' && trade.liquidation_price !== null
        ? {
            liquidation_price: new Decimal(String(trade.liquidation_price))
              .times(trade.side === 'long' ? '0.99' : '1.01')
              .toDecimalPlaces(8)
              .toFixed(),
          }
        : {},
    ),
  },
  {
    name: 'a trade funded in the base currency closed at the mark with its P&L divided by its open price',
    covers: 'TRADE-STOP-LOSS-AT-MARK',
    testControl: true,
    response: tradesRead((trade) =>
      trade.status === 'closed' &&
      trade.close_price !== null &&
      String(trade.funding_currency) === String(trade.currency_pair_code).slice(0, 3)
        ? {
            close_pnl: new Decimal(String(trade.close_pnl))
              .times(String(trade.close_price))
              .div(String(trade.open_price))
              .toDecimalPlaces(16)
              .toFixed(),
          }
        : {},
    ),
  },
  {
    name: 'a liquidated trade keeps its loans open',
    covers: 'TRADE-LIQUIDATED-AT-MARK',
    testControl: true,
    response: tradesRead((trade) => (trade.status === 'closed' ? { daily_interest: '0.01' } : {})),
  },
];
