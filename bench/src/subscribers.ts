/**
 * The bench's side of the subscriber process (subscribers-process.ts): start it, have it
 * connect or drop its subscribers, and read what they received.
 */
import { type ChildProcess, fork } from 'node:child_process';

export type SubscriberCommand =
  | { type: 'connect'; url: string; count: number; channels: string[] }
  | { type: 'reset' }
  | { type: 'stats'; latencies: boolean }
  | { type: 'disconnect' };

export type SubscriberReply =
  | { type: 'started' }
  | { type: 'connected'; open: number }
  | { type: 'reset' }
  | { type: 'stats'; received: number; lastAt: number; latencies: number[] }
  | { type: 'disconnected' };

export interface Stats {
  /** Frames received since the last reset. */
  received: number;
  /** When the last one arrived, in ms since the epoch. */
  lastAt: number;
  /** Publish-to-receipt times of the frames that carried `sent`. */
  latencies: number[];
}

export interface Subscribers {
  connect(url: string, count: number, channels: string[]): Promise<void>;
  reset(): Promise<void>;
  stats(latencies?: boolean): Promise<Stats>;
  disconnect(): Promise<void>;
  stop(): void;
}

/**
 * Starts subscribers spread over `processes` processes of their own: a process reads its
 * sockets one after another, so the last of a thousand reads a frame after all the others
 * did, and the more processes, the less of that wait a latency holds.
 */
export async function startSubscribers(processes = 1): Promise<Subscribers> {
  const group = await Promise.all(Array.from({ length: processes }, startSubscriberProcess));
  const [first] = group;
  if (group.length === 1 && first) return first;
  const each = async <T>(ask: (one: Subscribers, n: number) => Promise<T>) =>
    Promise.all(group.map(ask));
  return {
    async connect(url, count, channels) {
      // As even a share as the count allows, the first processes taking one more.
      const share = (n: number) => Math.floor(count / processes) + (n < count % processes ? 1 : 0);
      await each((one, n) => one.connect(url, share(n), channels));
    },
    reset: async () => void (await each((one) => one.reset())),
    async stats(latencies = false) {
      const all = await each((one) => one.stats(latencies));
      return {
        received: all.reduce((sum, stats) => sum + stats.received, 0),
        lastAt: Math.max(...all.map((stats) => stats.lastAt)),
        latencies: all.flatMap((stats) => stats.latencies),
      };
    },
    disconnect: async () => void (await each((one) => one.disconnect())),
    stop: () => {
      for (const one of group) one.stop();
    },
  };
}

/** Starts one subscriber process; tsx's hooks come along, so it runs from its TypeScript. */
async function startSubscriberProcess(): Promise<Subscribers> {
  const child: ChildProcess = fork(new URL('./subscribers-process.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <Type extends SubscriberReply['type']>(type: Type) =>
    new Promise<Extract<SubscriberReply, { type: Type }>>((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`the subscriber process exited with ${code} before ${type}`));
      child.once('exit', onExit);
      child.on('message', function answer(message: SubscriberReply) {
        if (message.type !== type) return;
        child.off('message', answer);
        child.off('exit', onExit);
        resolve(message as Extract<SubscriberReply, { type: Type }>);
      });
    });
  const ask = <Type extends SubscriberReply['type']>(command: SubscriberCommand, type: Type) => {
    const answered = next(type);
    child.send(command);
    return answered;
  };
  await next('started');
  return {
    async connect(url, count, channels) {
      const { open } = await ask({ type: 'connect', url, count, channels }, 'connected');
      if (open !== count) throw new Error(`${open} of ${count} subscribers connected`);
    },
    reset: async () => void (await ask({ type: 'reset' }, 'reset')),
    stats: async (latencies = false) => {
      const {
        received,
        lastAt,
        latencies: times,
      } = await ask({ type: 'stats', latencies }, 'stats');
      return { received, lastAt, latencies: times };
    },
    disconnect: async () => void (await ask({ type: 'disconnect' }, 'disconnected')),
    stop: () => child.kill('SIGKILL'),
  };
}
