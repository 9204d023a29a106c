import { once } from 'node:events';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { closeIdleSockets, type IdleSockets } from './idle-sockets.js';

interface Loopback {
  server: Server;
  origin: string;
  /** Client ports in the order their connections were opened, and the ones closed since. */
  opened: number[];
  closed: number[];
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/**
 * A server that keeps connections open for a minute and counts them, so any close seen in a
 * test is the client's. `announce` is the `Keep-Alive` header it answers with, if any.
 */
async function loopback(announce?: string): Promise<Loopback> {
  const server = createServer((_, response) => {
    if (announce !== undefined) response.setHeader('keep-alive', announce);
    response.end('ok');
  });
  server.keepAliveTimeout = 60_000;
  const seen: Loopback = { server, origin: '', opened: [], closed: [] };
  server.on('connection', (socket: Socket) => {
    const port = socket.remotePort ?? 0;
    seen.opened.push(port);
    socket.on('close', () => seen.closed.push(port));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  seen.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return seen;
}

/** One GET through the agent, as the Node sender makes it. */
function get(origin: string, agent: Agent, idle: IdleSockets) {
  idle.watch();
  return new Promise<void>((resolve, reject) => {
    request(`${origin}/`, { agent }, (response) => {
      idle.noteAnswer(response);
      response.resume();
      response.on('end', resolve);
    })
      .on('error', reject)
      .end();
  });
}

describe('closing idle sockets', () => {
  it('keeps a socket in use and closes it once idle for the limit, then stops looking', async () => {
    const server = await loopback();
    const agent = new Agent({ keepAlive: true });
    const idle = closeIdleSockets(agent, { idleMs: 400, everyMs: 50 });
    // Used every 150 ms, well within the limit, for longer than the limit: one connection.
    await get(server.origin, agent, idle);
    for (let call = 0; call < 4; call++) {
      await sleep(150);
      await get(server.origin, agent, idle);
    }
    const lastUse = performance.now();
    expect(server.opened).toHaveLength(1);
    expect(server.closed).toHaveLength(0);
    while (server.closed.length === 0 && performance.now() - lastUse < 10_000) await sleep(10);
    const idleFor = performance.now() - lastUse;
    // Closed by the client (the server would wait a minute), and not before the limit.
    expect(server.closed).toEqual(server.opened);
    expect(idleFor).toBeGreaterThanOrEqual(400 - 2 * 50);
    // With no socket left the timer stops, and the next call starts it again.
    await sleep(120);
    expect(idle.watching).toBe(false);
    await get(server.origin, agent, idle);
    expect(idle.watching).toBe(true);
    expect(server.opened).toHaveLength(2);
    agent.destroy();
  });

  it('closes sooner when the server announces a shorter Keep-Alive timeout', async () => {
    // The server announces `Keep-Alive: timeout=2`: the socket may idle for 1 s, not the 10 s
    // the client would allow by itself.
    const server = await loopback('timeout=2');
    const agent = new Agent({ keepAlive: true });
    const idle = closeIdleSockets(agent, { idleMs: 10_000, everyMs: 100 });
    await get(server.origin, agent, idle);
    const lastUse = performance.now();
    while (server.closed.length === 0 && performance.now() - lastUse < 8_000) await sleep(10);
    const idleFor = performance.now() - lastUse;
    expect(server.closed).toHaveLength(1);
    expect(idleFor).toBeGreaterThanOrEqual(1_000 - 2 * 100);
    agent.destroy();
  });
});
