/**
 * The websocket events (spec/exchange.asyncapi.yaml): the Pusher protocol on one connection,
 * the channels a REST write publishes on, and who may subscribe to a private channel.
 */

import { channelAddress, channelOf, channels, protocolEvents } from '@exchange-kit/contract/events';
import {
  channelPayloadSchemas,
  protocolPayloadSchemas,
} from '@exchange-kit/contract/events/schemas';
import { signServiceAuth } from '@exchange-kit/core/auth';
import { bodyOf, evidenceOf, expectStatus, isClientError } from '../engine/context.js';
import { EventsConnection, eventsUrlOf, type ReceivedFrame } from '../engine/events-connection.js';
import { Failure, SetupError, Skip } from '../engine/outcome.js';
import { forgeJwt } from '../signing/forge.js';
import { approvedRequest } from './oauth-grant.js';
import type { Scenario, ScenarioContext } from './scenario.js';

type Row = Record<string, unknown>;

const greeting = 'EVENTS-GREETING';
const ping = 'EVENTS-PING';
const subscribePublic = 'EVENTS-SUBSCRIBE-PUBLIC';
const unknownChannel = 'EVENTS-UNKNOWN-CHANNEL';
const privateNeedsAuth = 'EVENTS-PRIVATE-NEEDS-AUTH';
const authRefused = 'EVENTS-AUTH-REFUSED';
const authAccepted = 'EVENTS-AUTH-ACCEPTED';
const once = 'EVENTS-ONCE';
const inOrder = 'EVENTS-IN-ORDER';
const storedOnly = 'EVENTS-STORED-ONLY';
const payloadValid = 'EVENTS-PAYLOAD-VALID';
const otherUser = 'EVENTS-OTHER-USER';

const shown = (frame: ReceivedFrame) => frame.raw.slice(0, 300);

/** Connects, or records the reason there is nothing to check on every requirement given. */
export async function connect(
  context: ScenarioContext,
  covers: readonly string[],
): Promise<EventsConnection | undefined> {
  try {
    return await EventsConnection.open(eventsUrlOf(context.target));
  } catch (error) {
    for (const id of covers) context.evidence.record(evidenceOf(id, error));
    return undefined;
  }
}

/** A /realtime JWT; a nonce overtaken by a call signed beside it is signed again. */
export async function authenticate(context: ScenarioContext, events: EventsConnection) {
  const token = { tokenId: context.target.tokenId, tokenSecret: context.target.tokenSecret };
  for (let attempt = 0; ; attempt++) {
    const from = events.authenticate(await signServiceAuth(token, { path: '/realtime' }));
    const answer = await events.next(
      from,
      (frame) =>
        frame.event === protocolEvents.authSuccess || frame.event === protocolEvents.authFailure,
      'answer to quoine:auth_request',
    );
    const message = String((answer.data as Row | undefined)?.message ?? '');
    if (answer.event === protocolEvents.authSuccess || attempt >= 3 || !/nonce/i.test(message))
      return answer;
  }
}

export function expectEvent(frame: ReceivedFrame, event: string, why: string): void {
  if (frame.event !== event)
    throw new Failure(`${why}: the server sent ${frame.event}`, {
      received: shown(frame),
      documented: event,
    });
}

export async function subscribed(events: EventsConnection, channel: string, why: string) {
  const answer = await events.answer(events.subscribe(channel), channel);
  expectEvent(answer, protocolEvents.subscriptionSucceeded, why);
}

async function refused(events: EventsConnection, channel: string, why: string) {
  const answer = await events.answer(events.subscribe(channel), channel);
  expectEvent(answer, protocolEvents.error, why);
}

/** The protocol on a fresh connection, up to an authenticated subscription of the orders channel. */
async function checkProtocol(
  context: ScenarioContext,
  events: EventsConnection,
  channelsOf: { ladder: string; otherSide: string; orders: string },
): Promise<void> {
  const { evidence } = context;
  await evidence.check(greeting, async () => {
    const first = await events.next(0, () => true, protocolEvents.connectionEstablished);
    expectEvent(first, protocolEvents.connectionEstablished, 'the first frame is no greeting');
    const read = protocolPayloadSchemas.connectionEstablished.safeParse(first.data);
    if (!read.success)
      throw new Failure('the greeting lacks a socket_id and activity_timeout as specified', {
        received: shown(first),
        documented: '{"socket_id":"123.456","activity_timeout":120}',
      });
    return `socket ${read.data.socket_id}, activity timeout ${read.data.activity_timeout} s`;
  });
  // The subscription that follows the ping is answered after it: a missing pong shows at once.
  const pinged = events.frames.length;
  events.send(protocolEvents.ping, {});
  const answered = events.answer(events.subscribe(channelsOf.ladder), channelsOf.ladder);
  await evidence.check(ping, async () => {
    const answer = await answered;
    const pong = events.frames
      .slice(pinged, answer.index)
      .some((frame) => frame.event === protocolEvents.pong);
    if (!pong)
      throw new Failure('pusher:ping was not answered before the next request was', {
        received: events.frames
          .slice(pinged, answer.index + 1)
          .map(shown)
          .join('\n'),
        documented: protocolEvents.pong,
      });
    return undefined;
  });
  await evidence.check(subscribePublic, async () => {
    expectEvent(await answered, protocolEvents.subscriptionSucceeded, `${channelsOf.ladder}`);
    return undefined;
  });
  await evidence.check(unknownChannel, async () => {
    await refused(events, 'no_such_channel_anywhere', 'an unknown channel is not refused');
    await refused(events, 'price_ladders_cash_BTC JPY_buy', 'a malformed channel is not refused');
    await subscribed(
      events,
      channelsOf.otherSide,
      'after refusing a channel the connection no longer subscribes',
    );
    return undefined;
  });
  await evidence.check(privateNeedsAuth, async () => {
    await refused(events, channelsOf.orders, 'a private channel without quoine:auth_request');
    await refused(events, userChannel, 'the user channel without quoine:auth_request');
    return undefined;
  });
  await evidence.check(authRefused, async () => {
    const forged = forgeJwt(
      { token_id: context.target.tokenId, path: '/realtime', nonce: Date.now() * 1000 },
      { secret: `${context.target.tokenSecret}-not` },
    );
    const answer = await events.next(
      events.authenticate(forged),
      (frame) =>
        frame.event === protocolEvents.authSuccess || frame.event === protocolEvents.authFailure,
      'answer to quoine:auth_request',
    );
    expectEvent(answer, protocolEvents.authFailure, 'a JWT signed with another secret');
    await refused(events, channelsOf.orders, 'a private channel after a refused authentication');
    return undefined;
  });
  await evidence.check(authAccepted, async () => {
    // Subscribed whatever the answer: the writes' checks need the channel, not this verdict.
    const answer = await authenticate(context, events);
    const granted = await events.answer(events.subscribe(channelsOf.orders), channelsOf.orders);
    expectEvent(answer, protocolEvents.authSuccess, 'a valid /realtime JWT');
    expectEvent(
      granted,
      protocolEvents.subscriptionSucceeded,
      'the user subscribing to their orders',
    );
    const record = await events.answer(events.subscribe(userChannel), userChannel);
    expectEvent(
      record,
      protocolEvents.subscriptionSucceeded,
      'the user subscribing to their own record',
    );
    return undefined;
  });
}

/** What the channels published while the writes ran. */
interface Published {
  orders: ReceivedFrame[];
  ladder: ReceivedFrame[];
  /** The order ids the REST answers gave, in the order placed. */
  placed: string[];
  /** Set when the last change never arrived: the writes' events are not all there. */
  missing?: unknown;
}

async function placeAndCancel(context: ScenarioContext): Promise<string> {
  const order = await context.liveOrder({ side: 'buy', tradingType: 'spot' });
  const cancel = await context.caller.call('cancelOrder', {
    path: { order_id: String(order.id) },
  });
  expectStatus(cancel, 200);
  return String(order.id);
}

/**
 * Places and cancels an order, sends an order the server must refuse, then places and cancels
 * another: the refused write comes between two that publish, so what it published (nothing)
 * has arrived once the last cancellation has.
 */
async function write(
  context: ScenarioContext,
  events: EventsConnection,
  channelsOf: { ladder: string; orders: string },
): Promise<Published> {
  const from = events.frames.length;
  const first = await placeAndCancel(context);
  const product = (await context.market()).primary;
  const refusedCall = await context.caller.call('createOrder', {
    body: {
      order_type: 'limit',
      product_id: product.id,
      side: 'buy',
      quantity: '-1',
      price: product.restingBuyPrice,
      client_order_id: context.clientOrderId(),
      trading_type: 'spot',
    },
  });
  if (!isClientError(refusedCall.status))
    throw new SetupError(
      `an order of quantity -1 was answered ${refusedCall.status}, not refused`,
      refusedCall,
    );
  const second = await placeAndCancel(context);
  const published: Published = { orders: [], ladder: [], placed: [first, second] };
  try {
    const last = await events.next(
      from,
      (frame) =>
        frame.channel === channelsOf.orders &&
        String((frame.data as Row | undefined)?.id) === second &&
        (frame.data as Row).status === 'cancelled',
      `the cancellation of order ${second} on ${channelsOf.orders}`,
    );
    // Each write changes the buy side once: four of them, the last after its order's event.
    await events.next(
      last.index,
      () => events.frames.slice(from).filter((f) => f.channel === channelsOf.ladder).length >= 4,
      `four events on ${channelsOf.ladder}, one for each write`,
    );
  } catch (error) {
    published.missing = error;
  }
  // The protocol's own answers on a channel are no events of it.
  const after = events.frames.slice(from).filter((frame) => !frame.event.startsWith('pusher'));
  published.orders = after.filter((frame) => frame.channel === channelsOf.orders);
  published.ladder = after.filter((frame) => frame.channel === channelsOf.ladder);
  return published;
}

/** The user's own record: one name for every user, each hearing of their own. */
const userChannel = channelAddress('user', {});

const idOf = (frame: ReceivedFrame) => String((frame.data as Row | undefined)?.id);
const statusOf = (frame: ReceivedFrame) => String((frame.data as Row | undefined)?.status);

async function checkPublished(context: ScenarioContext, published: Published, orders: string) {
  const { evidence } = context;
  const seen = (frames: ReceivedFrame[]) => frames.map(shown).join('\n') || 'nothing';
  await evidence.check(once, async () => {
    if (published.missing) throw published.missing;
    for (const id of published.placed) {
      const statuses = published.orders.filter((f) => idOf(f) === id).map(statusOf);
      if (statuses.length !== 2)
        throw new Failure(
          `order ${id}, placed then cancelled, was published ${statuses.length} times on ${orders}`,
          {
            received: statuses.join(', '),
            documented: 'live, cancelled: once for each write',
          },
        );
    }
    if (published.ladder.length !== 4)
      throw new Failure(
        `four writes changed the buy side, which was published ${published.ladder.length} times`,
        {
          received: seen(published.ladder),
          documented: 'one event for each write',
        },
      );
    return `${published.orders.length} order events, ${published.ladder.length} book events`;
  });
  await evidence.check(inOrder, async () => {
    for (const id of published.placed) {
      const statuses = published.orders.filter((f) => idOf(f) === id).map(statusOf);
      const cancelled = statuses.indexOf('cancelled');
      if (statuses[0] !== 'live' || (cancelled >= 0 && statuses.slice(cancelled).includes('live')))
        throw new Failure(`order ${id} was published out of the order of its writes`, {
          received: statuses.join(', '),
          documented: 'live (placed), then cancelled',
        });
    }
    return undefined;
  });
  await evidence.check(storedOnly, async () => {
    const strangers = published.orders.filter((f) => !published.placed.includes(idOf(f)));
    if (strangers.length > 0)
      throw new Failure(
        `${orders} published an order no REST answer gave (the writes were ${published.placed.join(' and ')} and one refused)`,
        { received: seen(strangers), documented: 'only the changes of answered, stored writes' },
      );
    return undefined;
  });
  await evidence.check(payloadValid, async () => {
    const frames = [...published.orders, ...published.ladder];
    if (frames.length === 0)
      throw new Failure('nothing was published to validate', { documented: "the writes' events" });
    for (const frame of frames) {
      const found = channelOf(frame.channel ?? '');
      if (!found) throw new Failure(`an event on an unknown channel`, { received: shown(frame) });
      const channel = channels[found.name];
      const read = channelPayloadSchemas[found.name].safeParse(frame.data);
      if (!(channel.events as readonly string[]).includes(frame.event) || !read.success) {
        const issue = read.success ? undefined : read.error.issues[0];
        throw new Failure(
          `an event on ${frame.channel} is not valid against the ${found.name} channel's schema${issue ? ` (${issue.path.join('.') || 'data'}: ${issue.message})` : ` (event ${frame.event})`}`,
          {
            received: shown(frame),
            documented: `events ${channel.events.join(', ')} carrying ${found.name}'s payload`,
          },
        );
      }
    }
    return `${frames.length} payloads valid`;
  });
}

const protocolCovers = [
  greeting,
  ping,
  subscribePublic,
  unknownChannel,
  privateNeedsAuth,
  authRefused,
  authAccepted,
  once,
  inOrder,
  storedOnly,
  payloadValid,
];

/** The product's pair and its funding currency, as the channels name them. */
async function productChannels(context: ScenarioContext) {
  const product = (await context.market()).primary;
  const read = await context.caller.call('getProduct', { path: { product_id: product.id } });
  expectStatus(read, 200);
  const body = bodyOf(read);
  const pair = String(body.currency_pair_code).toLowerCase();
  return {
    ladder: channelAddress('priceLadders', { pair, side: 'buy' }),
    otherSide: channelAddress('priceLadders', { pair, side: 'sell' }),
    orders: channelAddress('userOrders', { currency: String(body.quoted_currency) }),
  };
}

const protocolAndWrites: Scenario = {
  name: 'events: the protocol, and the channels of an order placed and cancelled',
  profile: 'events',
  requires: ['orders'],
  covers: protocolCovers,
  // The book's events are counted: no other order may move it meanwhile.
  exclusive: true,
  async run(context) {
    const channelsOf = await productChannels(context);
    const events = await connect(context, protocolCovers);
    if (!events) return;
    try {
      await checkProtocol(context, events, channelsOf);
      await checkPublished(context, await write(context, events, channelsOf), channelsOf.orders);
    } finally {
      events.close();
    }
  },
};

const otherUsersChannel: Scenario = {
  name: "events: another user's account channel",
  profile: 'events',
  requires: ['oauth'],
  covers: [otherUser],
  async run(context) {
    const ids = await approvedRequest(context, `${context.runId}-events`);
    const read = await context.caller.call('getAccounts', { auth: { kind: 'oauth', ids } });
    expectStatus(read, 200, '200 with the accounts');
    const body = bodyOf(read);
    const account = [body.fiat_accounts, body.crypto_accounts]
      .flatMap((list) => (Array.isArray(list) ? (list as Row[]) : []))
      .find((entry) => typeof entry.push_channel === 'string');
    const own = channelOf(String(account?.push_channel ?? ''));
    if (own?.name !== 'userAccount')
      throw new Skip('GET /accounts gives no push_channel to subscribe to');
    const { userId, currency } = own.parameters as { userId: string; currency: string };
    const other = channelAddress('userAccount', { userId: String(BigInt(userId) + 1n), currency });
    const events = await connect(context, [otherUser]);
    if (!events) return;
    try {
      await context.evidence.check(otherUser, async () => {
        expectEvent(
          await authenticate(context, events),
          protocolEvents.authSuccess,
          'a valid /realtime JWT',
        );
        await refused(events, other, `another user's account channel ${other}`);
        await subscribed(events, String(account?.push_channel), "the user's own push_channel");
        return `${other} refused, ${String(account?.push_channel)} granted`;
      });
    } finally {
      events.close();
    }
  },
};

export const eventScenarios: Scenario[] = [protocolAndWrites, otherUsersChannel];
