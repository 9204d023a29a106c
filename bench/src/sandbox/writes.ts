// The write loads: the order mix, the margin fills, Quick Exchange intents, and the lanes
// and offers they work on.

import { serviceAuthJwt } from '@exchange-kit/core/auth';
import {
  addDemoToken,
  addSecondDemoToken,
  marginFillFloor,
  storeCeiling as measureStoreCeiling,
  type RunningSandbox,
  startSandbox,
} from '@exchange-kit/sandbox/bench';
import type autocannon from 'autocannon';
import {
  connections,
  type Load,
  load,
  placeSigned,
  rounds,
  seconds,
  sign,
  signedNow,
  type Token,
} from './load.js';
import type { Store } from './process.js';

const newOrder = (clientOrderId: string) =>
  JSON.stringify({
    order_type: 'limit',
    product_id: 1,
    side: 'buy',
    quantity: '0.001',
    price: '9000000',
    client_order_id: clientOrderId,
  });

/**
 * A token and the orders it works on. autocannon hands every request a fresh context, so
 * lanes go round-robin; with far more lanes than connections, no two calls in flight share a
 * token (whose nonces must arrive in order) or an order.
 */
export interface Connection {
  token: Token;
  orders: number[];
  cancelling?: number;
}

/** What autocannon keeps per connection between a request and its response. */
interface LaneContext {
  lane?: Connection;
  creating?: boolean;
}

const laneCount = connections * 8;

/** The lanes' tokens and resting orders, written to the store before the load. */
async function prepareLanes(sandbox: RunningSandbox): Promise<Connection[]> {
  const lanes: Connection[] = [];
  for (let n = 0; n < laneCount; n++) {
    const token = await addDemoToken(sandbox);
    const orders: number[] = [];
    for (let k = 0; k < 20; k++) {
      const response = await fetch(`${sandbox.exchangeUrl}/orders`, {
        method: 'POST',
        body: newOrder(`bench-${n}-${k}`),
        headers: { 'content-type': 'application/json', 'x-service-auth': sign(token, '/orders') },
      });
      orders.push(((await response.json()) as { id: number }).id);
    }
    lanes.push({ token, orders });
  }
  return lanes;
}

// Client order ids must not repeat: counted across every round.
let created = 0;

export async function writeMix(exchangeUrl: string, lanes: Connection[]): Promise<Load> {
  let lane = 0;
  return load('order edit / cancel / create mix (writes)', {
    url: exchangeUrl,
    requests: [
      {
        setupRequest: (request, context: LaneContext) => {
          context.lane ??= lanes[lane++ % lanes.length];
          context.creating = false;
          const own = context.lane as Connection;
          const roll = Math.random();
          const id = own.orders[Math.floor(Math.random() * own.orders.length)];
          if (id === undefined || roll > 0.9) {
            context.creating = true;
            const path = '/orders';
            return {
              ...request,
              method: 'POST',
              path,
              body: newOrder(`bench-more-${created++}`),
              headers: {
                'content-type': 'application/json',
                'x-service-auth': sign(own.token, path),
              },
            };
          }
          if (roll > 0.8) {
            own.orders.splice(own.orders.indexOf(id), 1);
            const path = `/orders/${id}/cancel`;
            return {
              ...request,
              method: 'PUT',
              path,
              body: undefined,
              headers: { 'x-service-auth': sign(own.token, path) },
            };
          }
          const path = `/orders/${id}`;
          const price = String(8_000_000 + Math.floor(Math.random() * 900_000));
          return {
            ...request,
            method: 'PUT',
            path,
            body: JSON.stringify({ price }),
            headers: {
              'content-type': 'application/json',
              'x-service-auth': sign(own.token, path),
            },
          };
        },
        onResponse: (status, body, context: LaneContext) => {
          // An edit answers with the order too: only a placement adds one to the lane.
          const created =
            context.creating === true &&
            status === 200 &&
            /"status":"live"/.test(body) &&
            /"client_order_id":"bench-more-/.test(body);
          const id = created ? Number(/"id":(\d+)/.exec(body)?.[1]) : undefined;
          if (id !== undefined && context.lane) context.lane.orders.push(id);
        },
      },
    ],
  });
}

/** The same POST again and again, each signed by the next of `tokens` in turn. */
function roundRobinPosts(
  tokens: Token[],
  path: string,
  body: string,
  signed: (token: Token) => string,
): autocannon.Request {
  let lane = 0;
  return {
    setupRequest: (request) => ({
      ...request,
      method: 'POST',
      path,
      body,
      headers: {
        'content-type': 'application/json',
        'x-service-auth': signed(tokens[lane++ % tokens.length] as Token),
      },
    }),
  };
}

/**
 * Quick Exchange intents of the demo partner: each call decided on the state in memory and
 * its rows (the token's nonce, the intent) stored with group commit, as every call of the
 * sandbox is. One token per lane, as for the order mix.
 */
export async function intentWrites(
  server: { partnerUrl: string; publicApiKey: string },
  tokens: Token[],
): Promise<Load> {
  const path = `/api/v1/partner/${server.publicApiKey}/intent`;
  const body = JSON.stringify({
    payout_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'USDC', quantity: '49.90' },
    strategy: 'ONE_TO_MANY',
  });
  return load('Quick Exchange intents, batched (writes)', {
    url: server.partnerUrl,
    requests: [
      roundRobinPosts(tokens, path, body, (token) =>
        signedNow(serviceAuthJwt(token, { path, delegate: true })),
      ),
    ],
  });
}

/** The price the maker offers at, above every bid of the write mix: only the takers reach it. */
const makerPrice = '9500000';
/** What each taker buys: the maker's offers hold 100,000 of these. */
const takenQuantity = '0.0001';

/** The margin row's buy, which takes part of an offer at once; its floor places the same. */
const takerBuy = {
  order_type: 'limit',
  product_id: 1,
  side: 'buy',
  quantity: takenQuantity,
  price: makerPrice,
  trading_type: 'margin',
  leverage_level: 2,
} as const;

/**
 * The maker's side of the matching rows: the second demo user offers its 10 BTC, in ten
 * orders, where no bid of the write mix reaches.
 */
async function offerToTakers(sandbox: RunningSandbox): Promise<void> {
  const maker = await addSecondDemoToken(sandbox);
  for (let n = 0; n < 10; n++) {
    const offer = {
      order_type: 'limit',
      product_id: 1,
      side: 'sell',
      quantity: '1',
      price: makerPrice,
    };
    const { status, body } = await placeSigned(sandbox.exchangeUrl, maker, offer);
    if (status !== 200) throw new Error(`the maker's offer: ${JSON.stringify(body)}`);
  }
}

/**
 * Margin buys that each take part of a resting offer at once: every call makes a fill (an
 * execution for both sides), its ledger entries and fees, and moves the taker's position.
 */
export async function matchingWrites(exchangeUrl: string, tokens: Token[]): Promise<Load> {
  const path = '/orders';
  const body = JSON.stringify(takerBuy);
  return load('margin order that fills at once: execution, ledger, fees, position (writes)', {
    url: exchangeUrl,
    requests: [
      {
        ...roundRobinPosts(tokens, path, body, (token) => sign(token, path)),
        onResponse: (status, response) => {
          // A buy left resting measured no fill: the offers ran out, or matching did not happen.
          if (status === 200 && !/"status":"filled"/.test(response)) {
            throw new Error(`a taker's buy did not fill: ${response}`);
          }
        },
      },
    ],
  });
}

/**
 * The edit with nothing around it: decided on the state and its changes (the order, the
 * account, the nonce) committed to the store, one at a time, no HTTP.
 */
export async function storeCeiling(sandbox: RunningSandbox): Promise<Load> {
  return {
    name: 'store ceiling: the edit, decided and committed, no HTTP (one at a time)',
    perSecond: await measureStoreCeiling(sandbox, seconds),
    p99Ms: Number.NaN,
    failed: 0,
  };
}

/**
 * The margin row's floor: the same fills, as many at a time as autocannon's connections,
 * decided and stored by a sandbox in this process on a store of their own (`store`, fresh),
 * with no HTTP. What the margin row could reach if a call cost only its decision and its rows.
 */
export async function marginFloor(store: Store): Promise<Load> {
  const sandbox = await startSandbox({ port: 0, ...store });
  try {
    return await rounds(async () => ({
      name: 'floor of the margin row: the fill decided and stored, no HTTP',
      perSecond: await marginFillFloor(sandbox, { seconds, inFlight: connections, takerBuy }),
      p99Ms: Number.NaN,
      failed: 0,
    }));
  } finally {
    await sandbox.close();
  }
}

/**
 * The write mix's lanes and the maker's offers the margin fills take, written to `store` by a
 * sandbox in this process, which `whileOpen` measures before it closes.
 */
export async function writeFixtures<T>(
  store: Store,
  whileOpen: (fixtures: RunningSandbox) => Promise<T>,
): Promise<{ lanes: Connection[]; measured: T }> {
  const fixtures = await startSandbox({ port: 0, ...store });
  try {
    const lanes = await prepareLanes(fixtures);
    await offerToTakers(fixtures);
    return { lanes, measured: await whileOpen(fixtures) };
  } finally {
    await fixtures.close();
  }
}
