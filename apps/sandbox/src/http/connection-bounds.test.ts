import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { startTestSandbox } from '../test-support.js';
import { fitConnectionBounds } from './connection-bounds.js';

// All of 127.0.0.0/8 is loopback on Linux: each client below has an address of its own.
const hogAddress = '127.0.0.1';
const callerAddress = '127.0.0.2';

interface Client {
  socket: Socket;
  closed: boolean;
  /** What the sandbox sent on it. */
  received: string;
}

const clients: Client[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.socket.destroy();
});

function portOf(sandbox: RunningSandbox): number {
  return Number(new URL(sandbox.exchangeUrl).port);
}

/** A connection from `localAddress`, resolved once connected; it sends nothing by itself. */
function open(sandbox: RunningSandbox, localAddress: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: portOf(sandbox), host: '127.0.0.1', localAddress });
    const client: Client = { socket, closed: false, received: '' };
    clients.push(client);
    socket.on('data', (chunk) => {
      client.received += chunk;
    });
    socket.once('connect', () => resolve(client));
    // The sandbox resets some of them: that is what is counted, not a failure.
    socket.on('error', () => {});
    socket.once('close', () => {
      client.closed = true;
      reject(new Error(`${localAddress}: closed before it connected`));
    });
  });
}

function openMany(sandbox: RunningSandbox, localAddress: string, count: number) {
  return Promise.all(Array.from({ length: count }, () => open(sandbox, localAddress)));
}

/** Waits, three seconds at most, until `done` holds. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!(await done()) && Date.now() < deadline) await sleep(20);
}

/** How many connections the sandbox holds, as Node counts them. */
function held(sandbox: RunningSandbox): Promise<number> {
  return new Promise((resolve, reject) =>
    sandbox.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

const closedOf = (group: Client[]) => group.filter((client) => client.closed).length;

/** GET /products from `localAddress` on a connection of its own: the status it answers. */
function ordinaryCall(sandbox: RunningSandbox, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const call = request(`${sandbox.exchangeUrl}/products`, { localAddress, agent: false });
    call.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    call.on('error', reject);
    call.end();
  });
}

describe('connection bounds', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startTestSandbox({ maxConnectionsPerAddress: 50, maxConnections: 120 });
  });
  afterAll(() => sandbox.close());

  it('refuses an address beyond its own bound and still serves another', async () => {
    const hog = await openMany(sandbox, hogAddress, 200);
    await until(() => closedOf(hog) >= 150);
    expect(await ordinaryCall(sandbox, callerAddress)).toBe(200);
    expect(closedOf(hog)).toBe(150);
    // The ones it kept are those it let in first.
    expect(hog.slice(0, 50).every((client) => !client.closed)).toBe(true);
  });

  it('makes room for a newcomer by closing the longest idle, never a call in flight', async () => {
    await until(async () => (await held(sandbox)) === 0);
    // A call whose body is still arriving: the 100 Continue says the sandbox has it in hand.
    const busy = await open(sandbox, '127.0.0.3');
    busy.socket.write(
      'POST /orders HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
        'content-length: 2\r\nexpect: 100-continue\r\n\r\n',
    );
    await until(() => busy.received.includes('100 Continue'));
    expect(busy.received).toMatch(/^HTTP\/1\.1 100 Continue/);

    // Four addresses, each well under its bound of 50, 160 connections against a total of 120.
    const idle: Client[][] = [];
    for (const address of ['127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7']) {
      idle.push(await openMany(sandbox, address, 40));
    }
    // One place is kept free: 119 stay open, the busy one among them.
    await until(() => idle.flat().filter((client) => client.closed).length >= 42);
    expect(idle.map(closedOf)).toEqual([40, 2, 0, 0]);
    // A newcomer gets in, and one more idle connection goes to keep the place free.
    expect(await ordinaryCall(sandbox, '127.0.0.8')).toBe(200);
    await until(() => closedOf(idle[1] ?? []) >= 3);
    expect(idle.map(closedOf)).toEqual([40, 3, 0, 0]);

    expect(busy.closed).toBe(false);
    busy.socket.write('{}');
    await until(() => busy.received.includes('API Authentication failed'));
    expect(busy.received).toMatch(/HTTP\/1\.1 401 Unauthorized/);
  });
});

describe('connections that send nothing', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startTestSandbox({ headersTimeoutMs: 300 });
  });
  afterAll(() => sandbox.close());

  it('closes one silent past the header timeout and keeps a kept-alive one', async () => {
    const silent = await open(sandbox, callerAddress);
    const kept = await open(sandbox, callerAddress);
    kept.socket.write('GET /health HTTP/1.1\r\nhost: x\r\n\r\n');
    await until(() => silent.closed);
    expect(silent.closed).toBe(true);
    await sleep(300);
    expect(silent.received).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    expect(silent.received).toContain('"message":"The request did not arrive in time');
    expect(kept.received).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(kept.closed).toBe(false);
    kept.socket.write('GET /health HTTP/1.1\r\nhost: x\r\n\r\n');
    await until(() => kept.received.split('200 OK').length > 2);
    expect(kept.received.split('200 OK')).toHaveLength(3);
  });
});

describe('bounds under the open-file limit', () => {
  it('lowers the total to leave a quarter of the limit, at least 64, and no address above it', () => {
    expect(fitConnectionBounds({ perAddress: 5000, total: 30_000 }, 20_000)).toEqual({
      perAddress: 5000,
      total: 15_000,
      loweredFrom: 30_000,
      openFileLimit: 20_000,
    });
    expect(fitConnectionBounds({}, 100)).toEqual({
      perAddress: 36,
      total: 36,
      loweredFrom: 10_000,
      openFileLimit: 100,
    });
    expect(fitConnectionBounds({ perAddress: 10, total: 50 }, 20_000)).toEqual({
      perAddress: 10,
      total: 50,
      openFileLimit: 20_000,
    });
    expect(fitConnectionBounds({}, undefined)).toEqual({ perAddress: 2000, total: 10_000 });
  });
});
