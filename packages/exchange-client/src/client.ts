import {
  type ConnectionOptions,
  createApiClient,
  encodeDecimals,
  unwrap,
  type WithDecimalInputs,
} from '@exchange-kit/core';
import { type ApiToken, type OAuthRequestIds, serviceAuthenticator } from '@exchange-kit/core/auth';
import type { Client } from 'openapi-fetch';
import type { components, operations as Operations, paths } from './generated/exchange.js';
import { loadSchemas, operations } from './generated/exchange.operations.js';

type Schemas = components['schemas'];

export type Order = Schemas['Order'];
export type OrderList = Schemas['OrderList'];
export type CancelledOrderEntry = Schemas['CancelledOrderEntry'];
export type Product = Schemas['Product'];
export type PriceLevels = Schemas['PriceLevels'];
export type Currency = Schemas['Currency'];
export type LoanBookLadder = Schemas['LoanBookLadder'];
export type OAuthRequest = Schemas['OAuthRequest'];
export type UserContext = Schemas['UserContext'];
export type Accounts = Schemas['Accounts'];

/** An order, by its system id or by the id the client chose when placing it. */
export type OrderRef =
  | { id: number | string; clientOrderId?: never }
  | { clientOrderId: string; id?: never };

/** A new order; decimals may be numbers, decimal strings or Decimals. */
export type OrderCreateInput = WithDecimalInputs<
  Schemas['OrderCreate'],
  typeof operations.createOrder.requestDecimals
>;
/** New price and/or quantity of a live order. */
export type OrderEditInput = WithDecimalInputs<
  Schemas['OrderEdit'],
  typeof operations.editOrder.requestDecimals
>;
/** New take profit and/or stop loss of a live order. */
export type OrderTpslInput = WithDecimalInputs<
  Schemas['OrderTpslUpdate'],
  typeof operations.updateOrderTpsl.requestDecimals
>;
export type ListOrdersQuery = NonNullable<Operations['listOrders']['parameters']['query']>;
export type CancelAllFilters = Schemas['CancelAllFilters'];

export interface ExchangeClientOptions extends ApiToken, ConnectionOptions {
  /** The exchange's base URL, for example https://api.exchange.example. */
  baseUrl: string;
}

const orderNotLive = { notFound: 'order-not-live' } as const;

function orderPath(ref: OrderRef) {
  return ref.clientOrderId === undefined
    ? ({ by: 'id', path: { order_id: ref.id } } as const)
    : ({ by: 'client', path: { client_order_id: ref.clientOrderId } } as const);
}

function clientFor(options: ExchangeClientOptions, oauth?: OAuthRequestIds): Client<paths> {
  const { baseUrl, tokenId, tokenSecret, ...connection } = options;
  return createApiClient<paths>({
    ...connection,
    baseUrl,
    operations,
    loadSchemas,
    authenticate: serviceAuthenticator({ tokenId, tokenSecret }, oauth ? { oauth } : {}),
    rateLimitKey: tokenId,
  });
}

/** The calls made for one user through an approved OAuth request. */
function userView(raw: Client<paths>) {
  return {
    raw,
    /** The user's context: ids, KYC status, permissions. */
    async context(): Promise<UserContext> {
      return unwrap(await raw.GET('/user/context'));
    },
    /** The user's crypto and fiat accounts. */
    async accounts(): Promise<Accounts> {
      return unwrap(await raw.GET('/accounts'));
    },
  };
}

export type UserView = ReturnType<typeof userView>;

export function createExchangeClient(options: ExchangeClientOptions) {
  const raw = clientFor(options);

  const orders = {
    async create(order: OrderCreateInput): Promise<Order> {
      const body = encodeDecimals(
        order,
        operations.createOrder.requestDecimals,
      ) as Schemas['OrderCreate'];
      return unwrap(await raw.POST('/orders', { body }));
    },
    /** One page of orders. */
    async list(query: ListOrdersQuery = {}): Promise<OrderList> {
      return unwrap(await raw.GET('/orders', { params: { query } }));
    },
    /** Every order matching the filters, fetching page after page as the loop asks for more. */
    async *iterate(
      query: Omit<ListOrdersQuery, 'page'> = {},
    ): AsyncGenerator<Order, void, undefined> {
      for (let page = 1; ; page++) {
        const list = await orders.list({ ...query, page });
        yield* list.models;
        if (list.models.length === 0 || page >= Number(list.total_pages)) return;
      }
    },
    async get(ref: OrderRef): Promise<Order> {
      const target = orderPath(ref);
      return target.by === 'id'
        ? unwrap(await raw.GET('/orders/{order_id}', { params: { path: target.path } }))
        : unwrap(
            await raw.GET('/orders/client:{client_order_id}', { params: { path: target.path } }),
          );
    },
    /** Edits price and/or quantity. Throws OrderNotLiveError when the order is not live. */
    async edit(ref: OrderRef, changes: OrderEditInput): Promise<Order> {
      const target = orderPath(ref);
      const body = encodeDecimals(
        changes,
        operations.editOrder.requestDecimals,
      ) as Schemas['OrderEdit'];
      return target.by === 'id'
        ? unwrap(
            await raw.PUT('/orders/{order_id}', { params: { path: target.path }, body }),
            orderNotLive,
          )
        : unwrap(
            await raw.PUT('/orders/client:{client_order_id}', {
              params: { path: target.path },
              body,
            }),
            orderNotLive,
          );
    },
    /** Updates take profit and/or stop loss. Throws OrderNotLiveError when the order is not live. */
    async updateTpsl(ref: OrderRef, changes: OrderTpslInput): Promise<Order> {
      const target = orderPath(ref);
      const body = encodeDecimals(
        changes,
        operations.updateOrderTpsl.requestDecimals,
      ) as Schemas['OrderTpslUpdate'];
      return target.by === 'id'
        ? unwrap(
            await raw.PUT('/orders/{order_id}/update_tpsl', {
              params: { path: target.path },
              body,
            }),
            orderNotLive,
          )
        : unwrap(
            await raw.PUT('/orders/client:{client_order_id}/update_tpsl', {
              params: { path: target.path },
              body,
            }),
            orderNotLive,
          );
    },
    /** Cancels a live order. Throws OrderNotLiveError when the order is not live. */
    async cancel(ref: OrderRef): Promise<Order> {
      const target = orderPath(ref);
      return target.by === 'id'
        ? unwrap(
            await raw.PUT('/orders/{order_id}/cancel', { params: { path: target.path } }),
            orderNotLive,
          )
        : unwrap(
            await raw.PUT('/orders/client:{client_order_id}/cancel', {
              params: { path: target.path },
            }),
            orderNotLive,
          );
    },
    /** Cancels every live order matching all the filters given (every live order with none). */
    async cancelAll(filters?: CancelAllFilters): Promise<CancelledOrderEntry[]> {
      const result = unwrap(await raw.PUT('/orders/cancel_all', filters ? { body: filters } : {}));
      return result.models;
    },
  };

  return {
    orders,
    products: {
      async list(query: { perpetual?: boolean } = {}): Promise<Product[]> {
        return unwrap(
          await raw.GET('/products', {
            params: { query: query.perpetual ? { perpetual: 1 } : {} },
          }),
        );
      },
      async get(productId: number | string): Promise<Product> {
        return unwrap(
          await raw.GET('/products/{product_id}', { params: { path: { product_id: productId } } }),
        );
      },
      /** The order book of a product, best price first. */
      async priceLevels(productId: number | string): Promise<PriceLevels> {
        // openapi-fetch widens the [price, quantity] tuples to arrays; the schema checked them.
        return unwrap(
          await raw.GET('/products/{product_id}/price_levels', {
            params: { path: { product_id: productId } },
          }),
        ) as PriceLevels;
      },
    },
    currencies: {
      async list(): Promise<Currency[]> {
        return unwrap(await raw.GET('/currencies'));
      },
    },
    loanBook: {
      /** Interest rates and amounts for margin trading in `currency` (case sensitive). */
      async get(currency: string): Promise<LoanBookLadder> {
        return unwrap(
          await raw.GET('/ir_ladders/{currency}', { params: { path: { currency } } }),
        ) as LoanBookLadder;
      },
    },
    oauth: {
      /** Starts acting for a user: the user opens `app_challenge_href` and approves. */
      async createRequest(externalRef?: string): Promise<OAuthRequest> {
        return unwrap(
          await raw.POST('/system/oauth_requests', {
            body: externalRef === undefined ? {} : { external_ref: externalRef },
          }),
        );
      },
      /** Approves a request; call it with a client of the *user's* own token. */
      async approve(privateId: string): Promise<OAuthRequest> {
        return unwrap(
          await raw.POST('/oauth/{oauth_request_private_id}/approve', {
            params: { path: { oauth_request_private_id: privateId } },
          }),
        );
      },
    },
    /** A view whose calls carry the ids of an approved OAuth request: they act for that user. */
    forUser(request: OAuthRequestIds): UserView {
      return userView(clientFor(options, request));
    },
    /** The typed openapi-fetch client, for anything else; its calls are signed and decoded too. */
    raw,
  };
}

export type ExchangeClient = ReturnType<typeof createExchangeClient>;
