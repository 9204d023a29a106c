/**
 * Connections opened and left silent by one address while an ordinary caller works: the
 * attack the sandbox's connection bounds answer.
 */
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface IdleConnections {
  /** How many of them the server still holds open. */
  held(): number;
  close(): void;
}

/**
 * Opens `count` connections to `url` from `localAddress` (another loopback address than the
 * caller's), a hundred at a time, and leaves them silent. Resolves once each is connected or
 * refused, ten seconds at most.
 */
export async function openIdleConnections(
  url: string,
  localAddress: string,
  count: number,
): Promise<IdleConnections> {
  const { hostname, port } = new URL(url);
  const sockets: Socket[] = [];
  let open = 0;
  const deadline = Date.now() + 10_000;
  for (let n = 0; n < count && Date.now() < deadline; n += 100) {
    const batch = Array.from({ length: Math.min(100, count - n) }, () => {
      const socket = connect({ host: hostname, port: Number(port), localAddress });
      sockets.push(socket);
      // A refused one is reset: that is what is counted, not a failure.
      socket.on('error', () => {});
      return new Promise<void>((resolve) => {
        socket.once('connect', () => {
          open += 1;
          socket.once('close', () => {
            open -= 1;
          });
          resolve();
        });
        socket.once('close', () => resolve());
      });
    });
    await Promise.all(batch);
  }
  // The server refuses the ones beyond its bounds as it accepts them: let it catch up.
  await sleep(500);
  return {
    held: () => open,
    close: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}
