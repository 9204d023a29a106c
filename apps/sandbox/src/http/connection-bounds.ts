import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How many connections the sandbox holds open: per client address, and in all. */
export interface ConnectionBounds {
  perAddress: number;
  total: number;
}

/** The bounds a sandbox runs with, once fitted under the open-file limit. */
export interface FittedConnectionBounds extends ConnectionBounds {
  /** The total asked for, when the open-file limit lowered it. */
  loweredFrom?: number;
  /** `ulimit -n` as read at start; absent where the system does not tell it. */
  openFileLimit?: number;
}

// A client with a thousand calls in flight opens a thousand connections at once (the nonce
// bench does): one address may hold twice that. Ten thousand in all is far from the
// open-file limits servers run with, and costs a few tens of MB of sockets.
export const defaultConnectionBounds: ConnectionBounds = { perAddress: 2000, total: 10_000 };

/**
 * Node's own limits on a connection's pace. A client sends its request line and headers as
 * soon as it connects: ten seconds is ample on any link, and a connection that sends nothing
 * for that long is a hog. The bodies the specs allow are small, so thirty seconds for a whole
 * request is ample too. Bots keep connections alive between calls a few seconds apart: a
 * minute keeps them reused, and an idle one is the first to go when the total fills up.
 */
export const connectionTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 60_000 };

/** Descriptors kept for what is not a connection: the store's files, Node's own. */
function descriptorsKept(openFileLimit: number): number {
  return Math.max(64, Math.ceil(openFileLimit / 4));
}

/** `ulimit -n` of this process, where the system tells it (Linux). */
export function readOpenFileLimit(): number | undefined {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    const soft = /^Max open files +(\d+)/m.exec(limits)?.[1];
    return soft === undefined ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

/** The bounds asked for, the total lowered to stay under the open-file limit. */
export function fitConnectionBounds(
  wanted: Partial<ConnectionBounds>,
  openFileLimit: number | undefined,
): FittedConnectionBounds {
  const total = wanted.total ?? defaultConnectionBounds.total;
  const fits =
    openFileLimit === undefined
      ? total
      : Math.max(1, Math.min(total, openFileLimit - descriptorsKept(openFileLimit)));
  return {
    perAddress: Math.min(wanted.perAddress ?? defaultConnectionBounds.perAddress, fits),
    total: fits,
    ...(fits < total && { loweredFrom: total }),
    ...(openFileLimit !== undefined && { openFileLimit }),
  };
}

interface Connection {
  address: string;
  /** Requests received on it and not yet answered. */
  inFlight: number;
}

/**
 * Bounds the server's connections. Node refuses a connection beyond the total
 * (`server.maxConnections`) and closes one that is slow to send its request (its header
 * and request timeouts); what it does not do is kept here: a count per client address, whose
 * newcomer beyond its bound is closed at once, and room for newcomers made by closing the
 * connections idle the longest once the total is reached, never one with a request in flight.
 */
export function boundConnections(
  server: Server,
  bounds: ConnectionBounds,
  headersTimeoutMs = connectionTimeouts.headersMs,
): void {
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = Math.max(connectionTimeouts.requestMs, headersTimeoutMs);
  server.keepAliveTimeout = connectionTimeouts.keepAliveMs;
  // The timeouts above are enforced by a sweep every connectionsCheckingInterval (30 s by
  // default, read when the server starts listening): a second keeps the header timeout close
  // to its word.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    Math.min(1000, headersTimeoutMs / 2);
  server.maxConnections = bounds.total;

  const perAddress = new Map<string, number>();
  // Longest idle first: a Map keeps its insertion order, and a connection whose call was just
  // answered is put back at the end.
  const open = new Map<Socket, Connection>();

  const forget = (socket: Socket) => {
    const connection = open.get(socket);
    if (!connection) return;
    open.delete(socket);
    const left = (perAddress.get(connection.address) ?? 1) - 1;
    if (left > 0) perAddress.set(connection.address, left);
    else perAddress.delete(connection.address);
  };

  // Keeps one place free, so Node never has to refuse a newcomer while a connection idles.
  const makeRoom = (newcomer?: Socket) => {
    for (const [socket, connection] of open) {
      if (open.size < bounds.total) return;
      if (socket === newcomer || connection.inFlight > 0) continue;
      forget(socket);
      socket.destroy();
    }
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    // No address: the client is already gone.
    if (address === undefined || (perAddress.get(address) ?? 0) >= bounds.perAddress) {
      socket.destroy();
      return;
    }
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    open.set(socket, { address, inFlight: 0 });
    socket.once('close', () => forget(socket));
    makeRoom(socket);
  });

  // A websocket is a call that lasts: its connection is never the idle one closed for room.
  server.prependListener('upgrade', (request) => {
    const connection = open.get(request.socket as Socket);
    if (connection) connection.inFlight += 1;
  });

  // Before the server's own listener, which may answer a kept read at once.
  server.prependListener('request', (request, response) => {
    const socket = request.socket as Socket;
    const connection = open.get(socket);
    if (!connection) return;
    connection.inFlight += 1;
    response.once('close', () => {
      connection.inFlight -= 1;
      if (!open.delete(socket)) return;
      open.set(socket, connection);
      makeRoom();
    });
  });
}
