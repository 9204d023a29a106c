import { Bench } from 'tinybench';

export interface Measurement {
  name: string;
  /** Median time of one run, in microseconds. */
  medianUs: number;
  samples: number;
}

/** Runs each task for about `timeMs` and returns its median; tasks run one after another. */
export async function measure<
  const Tasks extends ReadonlyArray<readonly [name: string, run: () => unknown]>,
>(tasks: Tasks, timeMs = 1_500): Promise<{ [K in keyof Tasks]: Measurement }> {
  const bench = new Bench({ time: timeMs, warmup: true });
  for (const [name, run] of tasks) bench.add(name, run);
  await bench.run();
  return bench.tasks.map((task) => {
    const result = task.result;
    if (!('latency' in result)) throw new Error(`${task.name}: ${result.state}`);
    return {
      name: task.name,
      medianUs: result.latency.p50 * 1000,
      samples: result.latency.samplesCount,
    };
  }) as { [K in keyof Tasks]: Measurement };
}

export const us = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(1)} µs`;
