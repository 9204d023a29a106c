/**
 * Faults of the websocket events, each breaking one EVENTS-* requirement the way a server
 * could: frames the proxy drops, repeats, holds back, rewrites or makes up.
 */
import { channelOf, channels, protocolEvents } from '@exchange-kit/contract/events';
import type { Fault, ProxiedSocket } from './fault-proxy.js';
import { is, type Row } from './faults/proxied.js';

interface Frame {
  event: string;
  channel?: string;
  data?: unknown;
}

function frameOf(raw: string): Frame | undefined {
  try {
    const frame: unknown = JSON.parse(raw);
    return typeof frame === 'object' && frame !== null ? (frame as Frame) : undefined;
  } catch {
    return undefined;
  }
}

function dataOf(frame: Frame): Row {
  if (typeof frame.data !== 'string') return (frame.data ?? {}) as Row;
  try {
    return JSON.parse(frame.data) as Row;
  } catch {
    return {};
  }
}

/** The frame with `data` replaced, a JSON string as Pusher carries it. */
const withData = (frame: Frame, data: unknown) =>
  JSON.stringify({ ...frame, data: JSON.stringify(data) });

/** An event of the user's orders channel, not the protocol's answer on it. */
const isOrders = (frame: Frame | undefined) =>
  channelOf(frame?.channel ?? '')?.name === 'userOrders' && !frame?.event.startsWith('pusher');

/** Rewrites each frame the server sends for which `change` gives frames in its place. */
const serverFrames =
  (change: (frame: Frame, raw: string, socket: ProxiedSocket) => string[] | undefined) =>
  (raw: string, socket: ProxiedSocket) => {
    const frame = frameOf(raw);
    return (frame && change(frame, raw, socket)) ?? [raw];
  };

/**
 * Keeps what the connection's answers depend on: the channel of the last subscription the
 * client asked for, and whether it asked to authenticate or was let in.
 */
function noteClient(raw: string, socket: ProxiedSocket): string[] {
  const frame = frameOf(raw);
  if (frame?.event === protocolEvents.subscribe) socket.state.pending = dataOf(frame).channel;
  if (frame?.event === protocolEvents.authRequest) socket.state.authRequested = true;
  return [raw];
}

/** The pending subscription's refusal answered as granted, when `grant` says so. */
function grantRefused(grant: (channel: string, socket: ProxiedSocket) => boolean) {
  return serverFrames((frame, _, socket) => {
    if (frame.event === protocolEvents.authSuccess) socket.state.authenticated = true;
    const channel = String(socket.state.pending ?? '');
    if (frame.event !== protocolEvents.error || !grant(channel, socket)) return undefined;
    return [JSON.stringify({ event: protocolEvents.subscriptionSucceeded, channel, data: '{}' })];
  });
}

const isPrivate = (channel: string) => {
  const found = channelOf(channel);
  return found !== undefined && channels[found.name].private;
};

export const eventFaults: Fault[] = [
  {
    name: "a fill reaches its taker's own executions channel, never its maker's",
    covers: 'EVENTS-MAKER-FILL',
    testControl: true,
    serverFrame: serverFrames((frame) => {
      if (channelOf(frame.channel ?? '')?.name !== 'userExecutions') return undefined;
      const data = dataOf(frame);
      return data.my_side !== undefined && data.my_side !== data.taker_side ? [] : undefined;
    }),
  },
  {
    name: "a perpetual's product channel never publishes, its mark moved or not",
    covers: 'EVENTS-MARK-MOVES-PRODUCT',
    testControl: true,
    serverFrame: serverFrames((frame) =>
      channelOf(frame.channel ?? '')?.name === 'productCash' &&
      !frame.event.startsWith('pusher') &&
      dataOf(frame).mark_price !== undefined
        ? []
        : undefined,
    ),
  },
  {
    name: 'the greeting carries no socket_id',
    covers: 'EVENTS-GREETING',
    serverFrame: serverFrames((frame) => {
      if (frame.event !== protocolEvents.connectionEstablished) return undefined;
      const { socket_id: _, ...rest } = dataOf(frame);
      return [withData(frame, rest)];
    }),
  },
  {
    name: 'pusher:ping is never answered',
    covers: 'EVENTS-PING',
    serverFrame: serverFrames((frame) => (frame.event === protocolEvents.pong ? [] : undefined)),
  },
  {
    name: 'the first public subscription is refused',
    covers: 'EVENTS-SUBSCRIBE-PUBLIC',
    serverFrame: serverFrames((frame, _, socket) => {
      if (frame.event !== protocolEvents.subscriptionSucceeded || socket.state.refusedOne)
        return undefined;
      if (isPrivate(frame.channel ?? '')) return undefined;
      socket.state.refusedOne = true;
      const message = `channel: "${frame.channel}" is not available`;
      return [JSON.stringify({ event: protocolEvents.error, data: { code: null, message } })];
    }),
  },
  {
    name: 'a channel no one publishes on is granted',
    covers: 'EVENTS-UNKNOWN-CHANNEL',
    clientFrame: noteClient,
    serverFrame: grantRefused((channel) => channelOf(channel) === undefined),
  },
  {
    name: 'a private channel is granted to a connection that never authenticated',
    covers: 'EVENTS-PRIVATE-NEEDS-AUTH',
    clientFrame: noteClient,
    serverFrame: grantRefused(
      (channel, socket) => isPrivate(channel) && !socket.state.authRequested,
    ),
  },
  {
    name: 'a JWT signed with another secret is let in',
    covers: 'EVENTS-AUTH-REFUSED',
    serverFrame: serverFrames((frame) =>
      frame.event === protocolEvents.authFailure
        ? [JSON.stringify({ event: protocolEvents.authSuccess, data: '{}' })]
        : undefined,
    ),
  },
  {
    name: 'a valid /realtime JWT is refused',
    covers: 'EVENTS-AUTH-ACCEPTED',
    serverFrame: serverFrames((frame) =>
      frame.event === protocolEvents.authSuccess
        ? [
            withData(
              { event: protocolEvents.authFailure },
              { message: 'API Authentication failed' },
            ),
          ]
        : undefined,
    ),
  },
  {
    name: 'the user channel is refused to the user who authenticated',
    covers: 'EVENTS-AUTH-ACCEPTED',
    serverFrame: serverFrames((frame) =>
      frame.event === protocolEvents.subscriptionSucceeded &&
      channelOf(frame.channel ?? '')?.name === 'user'
        ? [
            JSON.stringify({
              event: protocolEvents.error,
              data: { code: null, message: 'channel: no channel is named "user"' },
            }),
          ]
        : undefined,
    ),
  },
  {
    name: "an order's first event is published twice",
    covers: 'EVENTS-ONCE',
    serverFrame: serverFrames((frame, raw, socket) => {
      if (!isOrders(frame) || socket.state.repeated) return undefined;
      socket.state.repeated = true;
      return [raw, raw];
    }),
  },
  {
    name: "an order's first event comes after its second",
    covers: 'EVENTS-IN-ORDER',
    serverFrame: serverFrames((frame, raw, socket) => {
      if (!isOrders(frame) || socket.state.released) return undefined;
      const held = socket.state.held as string | undefined;
      if (held === undefined) {
        socket.state.held = raw;
        return [];
      }
      socket.state.released = true;
      return [raw, held];
    }),
  },
  {
    name: 'an order the server refused is published as placed',
    covers: 'EVENTS-STORED-ONLY',
    serverFrame: serverFrames((frame, _, socket) => {
      if (isOrders(frame)) socket.state.lastOrder = frame;
      return undefined;
    }),
    response(request, response, tools) {
      const refused = is(request, 'createOrder') && response.status >= 400;
      if (!refused) return response;
      for (const socket of tools.sockets) {
        const last = socket.state.lastOrder as Frame | undefined;
        if (!last) continue;
        const order = dataOf(last);
        const id = typeof order.id === 'number' ? order.id + 1_000_000 : `${String(order.id)}0`;
        socket.toClient(withData(last, { ...order, id, status: 'live' }));
      }
      return response;
    },
  },
  {
    name: 'an order event carries an order_type the schema does not have',
    covers: 'EVENTS-PAYLOAD-VALID',
    serverFrame: serverFrames((frame) =>
      isOrders(frame) ? [withData(frame, { ...dataOf(frame), order_type: 'whenever' })] : undefined,
    ),
  },
  {
    name: "another user's account channel is granted",
    covers: 'EVENTS-OTHER-USER',
    clientFrame: noteClient,
    serverFrame: grantRefused(
      (channel, socket) =>
        socket.state.authenticated === true && channelOf(channel)?.name === 'userAccount',
    ),
  },
];
