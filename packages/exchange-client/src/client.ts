import {
  type Accounts,
  type CancelAllFilters as CancelAllFiltersBody,
  type CancelledOrderEntry,
  type LoanBookLadder,
  loadSchemas,
  type OAuthRequest,
  type OAuthRequestState,
  type operations as Operations,
  type Order,
  type OrderCreate,
  type OrderEdit,
  type OrderList,
  type OrderTpslUpdate,
  type OrderType,
  type OwnExecution,
  type OwnExecutionList,
  operationTable as operations,
  type paths,
  secretFields,
  type UserContext,
} from '@exchange-kit/contract/exchange';
import {
  type CallInput,
  ClientOrderIdConflictError,
  type ConnectionOptions,
  createApi,
  type OrderDifference,
  oauthRequestRefusal,
  type PerCallOptions,
  toDecimalString,
  ValidationError,
  type ValidationErrorGuard,
  validationErrorGuard,
  type WithDecimalInputs,
} from '@exchange-kit/core';
import {
  type ApiToken,
  type OAuthRequestIds,
  serviceAuthenticator,
  signServiceAuth,
} from '@exchange-kit/core/auth';
import type { ExchangeApi } from './api.js';
import { createEventsClient, type EventsClient, type EventsOptions } from './events.js';
import { everyRow } from './every-row.js';
import { feeCalls } from './fees.js';
import { accountCalls, ledgerCalls } from './ledger.js';
import { loanBidCalls, loanCalls } from './loans.js';
import { currencyReads, eventsUrl, executionReads, productReads } from './public-client.js';
import { tradeCalls } from './trades.js';
import { tradingAccountCalls } from './trading-accounts.js';
import { depositCalls, withdrawalCalls } from './withdrawals.js';

export type {
  Accounts,
  CancelledOrderEntry,
  Currency,
  Execution,
  ExecutionList,
  LoanBookLadder,
  OAuthRequest,
  OAuthRequestState,
  OAuthRequestStatus,
  Order,
  OrderList,
  OrderStatus,
  OrderType,
  OwnExecution,
  OwnExecutionList,
  PriceLevels,
  Product,
  Side,
  TradingType,
  TrailingStopType,
  UserContext,
} from '@exchange-kit/contract/exchange';

/** An order, by its system id or by the id the client chose when placing it. */
export type OrderRef =
  | { id: number | string; clientOrderId?: never }
  | { clientOrderId: string; id?: never };

/**
 * A new order, one shape per `order_type`: a limit order needs a `price`, a trailing stop its
 * `trailing_stop_type` and `trailing_stop_value`... Decimals may be numbers, decimal strings
 * or Decimals.
 */
export type OrderCreateInput = WithDecimalInputs<
  OrderCreate,
  typeof operations.createOrder.requestDecimals
>;
/** A new order of one type: `OrderCreateInputOf<'limit'>`. */
export type OrderCreateInputOf<Type extends OrderType> = Extract<
  OrderCreateInput,
  { order_type: Type }
>;
/** New price and/or quantity of a live order. */
export type OrderEditInput = WithDecimalInputs<
  OrderEdit,
  typeof operations.editOrder.requestDecimals
>;
/** New take profit and/or stop loss of a live order. */
export type OrderTpslInput = WithDecimalInputs<
  OrderTpslUpdate,
  typeof operations.updateOrderTpsl.requestDecimals
>;
export type ListOrdersQuery = NonNullable<Operations['listOrders']['parameters']['query']>;
export type ListOwnExecutionsQuery = Operations['listOwnExecutions']['parameters']['query'];
/** Filters of cancelAll; a product id may be a number or a string, as everywhere else. */
export type CancelAllFilters = Omit<CancelAllFiltersBody, 'product_id'> & {
  product_id?: number | string;
};

export interface ExchangeClientOptions extends ApiToken, ConnectionOptions {
  /** The exchange's base URL, for example https://api.exchange.example. */
  baseUrl: string;
  /**
   * Sign an order that carries a `client_order_id` without a nonce, as the exchange's
   * conventions allow, so placements never wait on nonce order; the `client_order_id` is then
   * what must not repeat. The JWT carries the current `iat` and a random `jti`: a server that
   * follows the spec takes it for one order, near that time. Off by default: the body is not
   * signed, so a server that does not could be sent other orders with a leaked JWT.
   */
  ordersWithoutNonce?: boolean;
  /**
   * How `client.events` connects: its `url` defaults to the base URL's host at the events
   * path (`ws://` for `http://`, `wss://` for `https://`); on Node 20 pass `WebSocket` from
   * the `ws` package.
   */
  events?: Partial<EventsOptions>;
}

/**
 * What makes a re-sent create the same order as the one that holds its client_order_id: the
 * terms the caller chose. What the exchange changes over the order's life (status, fills) is
 * left out, so a retry of an order that has since filled or been cancelled still matches.
 */
function differencesOf(asked: OrderCreateInput, order: Order): OrderDifference[] {
  const differences: OrderDifference[] = [];
  for (const field of ['order_type', 'side', 'product_id', 'quantity', 'price'] as const) {
    const value = asked[field];
    // A market order names no price.
    if (value === undefined) continue;
    const requested =
      field === 'quantity' || field === 'price' ? toDecimalString(value, field) : String(value);
    const existing = order[field];
    if (requested !== String(existing)) differences.push({ field, existing, requested });
  }
  return differences;
}

const idTaken = (error: unknown) =>
  error instanceof ValidationError && error.fields.client_order_id?.includes('already_used');

/** The calls made for one user through an approved OAuth request. */
function userView({ raw, call }: ExchangeApi) {
  return {
    raw,
    /** The user's context: ids, KYC status, permissions. */
    context: (options?: PerCallOptions): Promise<UserContext> =>
      call('getUserContext', {}, options),
    /** The user's crypto and fiat accounts. */
    accounts: (options?: PerCallOptions): Promise<Accounts> => call('getAccounts', {}, options),
  };
}

export type UserView = ReturnType<typeof userView>;

type GeneratedTable = typeof operations;
/** What the spec says of each exchange operation: method, path, statuses, error codes. */
export interface ExchangeOperationTable extends GeneratedTable {}
type OrderOperation = 'getOrder' | 'editOrder' | 'updateOrderTpsl' | 'cancelOrder';
// Does not compile when the spec renames one operation of a pair.
type OrderOperations = keyof Pick<Operations, OrderOperation | `${OrderOperation}ByClientId`>;

function apiFor(options: ExchangeClientOptions, oauth?: OAuthRequestIds): ExchangeApi {
  const {
    baseUrl,
    tokenId,
    tokenSecret,
    ordersWithoutNonce: _,
    events: _events,
    ...connection
  } = options;
  return createApi<paths, Operations>({
    ...connection,
    baseUrl,
    operations,
    loadSchemas,
    authenticate: serviceAuthenticator({ tokenId, tokenSecret }, oauth ? { oauth } : {}),
    rateLimitKey: tokenId,
    secretFields,
    // A call through an OAuth request that does not act for its user says why.
    unauthorized: oauthRequestRefusal,
  });
}

/**
 * Is this the 422 of that operation? Its `fields` are then the fields and codes the spec
 * documents for it: `if (isValidationErrorOf(error, 'createOrder')) error.fields.price`.
 * An order addressed by its client id answers as the `...ByClientId` operation.
 */
export const isValidationErrorOf: ValidationErrorGuard<ExchangeOperationTable> =
  validationErrorGuard();

export function createExchangeClient(options: ExchangeClientOptions) {
  const { raw, call } = apiFor(options);
  let events: EventsClient | undefined;

  /**
   * The calls on one order come in pairs, `x` by system id and `xByClientId`; all but a get
   * answer a 404 with OrderNotLiveError.
   */
  function onOrder(
    operation: OrderOperation,
    ref: OrderRef,
    options: PerCallOptions | undefined,
    body?: object,
    query?: object,
  ): Promise<Order> {
    // From JavaScript a bare id or `{ client_order_id }` gets here too.
    if (typeof ref !== 'object' || ref === null || (ref.id ?? ref.clientOrderId) === undefined) {
      return Promise.reject(
        new TypeError(
          `${operation}: an order is named as { id } or { clientOrderId }, got ${JSON.stringify(ref)}`,
        ),
      );
    }
    const byId = ref.clientOrderId === undefined;
    const name: OrderOperations = byId ? operation : `${operation}ByClientId`;
    // One signature stands for all eight: each takes an order's path and answers an Order.
    return call(
      name as 'getOrder',
      {
        path: byId ? { order_id: ref.id } : { client_order_id: ref.clientOrderId },
        query,
        body,
        notFound: operation === 'getOrder' ? undefined : 'order-not-live',
      } as CallInput<Operations['getOrder']>,
      options,
    );
  }

  const orders = {
    /**
     * Places an order. With a `client_order_id` it is safe to send again (after a timeout, say):
     * when the id is taken by the very order asked for, that order comes back; when it is taken
     * by another, ClientOrderIdConflictError says how they differ.
     */
    async create(order: OrderCreateInput, callOptions?: PerCallOptions): Promise<Order> {
      const clientOrderId = order.client_order_id;
      const withoutNonce = options.ordersWithoutNonce === true && typeof clientOrderId === 'string';
      try {
        return await call('createOrder', { body: order as OrderCreate, withoutNonce }, callOptions);
      } catch (error) {
        if (clientOrderId === undefined || !idTaken(error)) throw error;
        const existing = await onOrder('getOrder', { clientOrderId }, callOptions);
        const differences = differencesOf(order, existing);
        if (differences.length === 0) return existing;
        throw new ClientOrderIdConflictError(clientOrderId, existing, differences, {
          cause: error,
        });
      }
    },
    /** One page of orders. */
    list(query: ListOrdersQuery = {}, options?: PerCallOptions): Promise<OrderList> {
      return call('listOrders', { query }, options);
    },
    /** Every order matching the filters, fetching page after page as the loop asks for more. */
    iterate(
      query: Omit<ListOrdersQuery, 'page'> = {},
      options?: PerCallOptions,
    ): AsyncGenerator<Order, void, undefined> {
      return everyRow((page) => call('listOrders', { query: { ...query, page } }, options));
    },
    /** One order; with `withDetails: true` it carries its fills (`executions`). */
    get(ref: OrderRef & { withDetails?: boolean }, options?: PerCallOptions): Promise<Order> {
      const { withDetails, ...key } = ref;
      return onOrder(
        'getOrder',
        key as OrderRef,
        options,
        undefined,
        withDetails ? { with_details: 1 } : undefined,
      );
    },
    /** Edits price and/or quantity. Throws OrderNotLiveError when the order is not live. */
    edit(ref: OrderRef, changes: OrderEditInput, options?: PerCallOptions): Promise<Order> {
      return onOrder('editOrder', ref, options, changes);
    },
    /** Updates take profit and/or stop loss. Throws OrderNotLiveError when the order is not live. */
    updateTpsl(ref: OrderRef, changes: OrderTpslInput, options?: PerCallOptions): Promise<Order> {
      return onOrder('updateOrderTpsl', ref, options, changes);
    },
    /** Cancels a live order. Throws OrderNotLiveError when the order is not live. */
    cancel(ref: OrderRef, options?: PerCallOptions): Promise<Order> {
      return onOrder('cancelOrder', ref, options);
    },
    /** Cancels every live order matching all the filters given (every live order with none). */
    async cancelAll(
      filters?: CancelAllFilters,
      options?: PerCallOptions,
    ): Promise<CancelledOrderEntry[]> {
      // The interface sends the product id of this one operation as a string.
      const body =
        filters?.product_id === undefined
          ? (filters as CancelAllFiltersBody | undefined)
          : { ...filters, product_id: String(filters.product_id) };
      return (await call('cancelAllOrders', { body }, options)).models;
    },
  };

  const executions = {
    ...executionReads(call),
    /** One page of the caller's own fills, newest first; `with_details: 1` adds the order. */
    mine(query: ListOwnExecutionsQuery, options?: PerCallOptions): Promise<OwnExecutionList> {
      return call('listOwnExecutions', { query }, options);
    },
    /** Every fill of the caller's on a product, newest first, page after page. */
    iterateMine(
      query: Omit<ListOwnExecutionsQuery, 'page'>,
      options?: PerCallOptions,
    ): AsyncGenerator<OwnExecution, void, undefined> {
      // A fill between two orders of the caller's is one row per side, under one id.
      return everyRow(
        (page) => call('listOwnExecutions', { query: { ...query, page } }, options),
        (fill) => `${fill.id} ${fill.my_side}`,
      );
    },
  };

  return {
    orders,
    executions,
    trades: tradeCalls(call),
    tradingAccounts: tradingAccountCalls(call),
    ledger: ledgerCalls(call),
    accounts: accountCalls(call),
    withdrawals: withdrawalCalls(call),
    deposits: depositCalls(call),
    fees: feeCalls(call),
    loanBids: loanBidCalls(call),
    loans: loanCalls(call),
    products: productReads(call),
    currencies: currencyReads(call),
    loanBook: {
      /** Interest rates and amounts for margin trading in `currency` (case sensitive). */
      get(currency: string, options?: PerCallOptions): Promise<LoanBookLadder> {
        return call('getLoanBook', { path: { currency } }, options);
      },
    },
    oauth: {
      /** Starts acting for a user: the user opens `app_challenge_href` and approves. */
      createRequest(externalRef?: string, options?: PerCallOptions): Promise<OAuthRequest> {
        return call(
          'createOAuthRequest',
          { body: externalRef === undefined ? {} : { external_ref: externalRef } },
          options,
        );
      },
      /**
       * A request of this client's token with its `status` (`pending`, `approved`, `denied`,
       * `expired`) and `decided_at`: poll it after sending the user to `app_challenge_href`.
       * A request of another token is a `NotFoundError`.
       */
      getRequest(publicId: string, options?: PerCallOptions): Promise<OAuthRequestState> {
        return call('getOAuthRequest', { path: { oauth_request_public_id: publicId } }, options);
      },
      /** Approves a request; call it with a client of the *user's* own token. */
      approve(privateId: string, options?: PerCallOptions): Promise<OAuthRequest> {
        return call(
          'approveOAuthRequest',
          { path: { oauth_request_private_id: privateId } },
          options,
        );
      },
    },
    /** A view whose calls carry the ids of an approved OAuth request: they act for that user. */
    forUser(request: OAuthRequestIds): UserView {
      return userView(apiFor(options, request));
    },
    /**
     * The websocket channels, connected on the first subscription: `client.events.subscribe(
     * 'executionsCash', { pair: 'btcjpy' })`, read with `for await` or `.on(listener)`.
     */
    get events(): EventsClient {
      const token = { tokenId: options.tokenId, tokenSecret: options.tokenSecret };
      events ??= createEventsClient({
        url: eventsUrl(options.baseUrl),
        // The private channels of the token's user, signed as its calls are.
        authenticate: () => signServiceAuth(token, { path: '/realtime' }),
        ...options.events,
      });
      return events;
    },
    /** The typed openapi-fetch client, for anything else; its calls are signed and decoded too. */
    raw,
  };
}

export type ExchangeClient = ReturnType<typeof createExchangeClient>;
