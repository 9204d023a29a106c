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

/** Starts the subscriber process; tsx's hooks come along, so it runs from its TypeScript. */
export async function startSubscribers(): Promise<Subscribers> {
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
