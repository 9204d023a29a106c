import { Bench } from 'tinybench';

export interface Measurement {
  name: string;
  /** Median time of one run, in microseconds: the median over rounds of each round's median. */
  medianUs: number;
  samples: number;
}

const rounds = 3;

/**
 * Runs the tasks in several rounds, each round in another order, and keeps each task's median
 * over the rounds: one after another, the first task would pay the warm-up and a slow drift of
 * the machine would bias whichever runs last.
 */
export async function measure<
  const Tasks extends ReadonlyArray<readonly [name: string, run: () => unknown]>,
>(tasks: Tasks, timeMs = 1_500): Promise<{ [K in keyof Tasks]: Measurement }> {
  const medians = tasks.map(() => [] as number[]);
  const samples = tasks.map(() => 0);
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({ time: timeMs / rounds, warmup: true });
    const order = tasks.map((_, index) => (index + round) % tasks.length);
    for (const index of order) {
      const [name, run] = tasks[index] as Tasks[number];
      bench.add(name, run);
    }
    await bench.run();
    bench.tasks.forEach((task, position) => {
      const index = order[position] as number;
      const result = task.result;
      if (!('latency' in result)) throw new Error(`${task.name}: ${result.state}`);
      medians[index]?.push(result.latency.p50 * 1000);
      samples[index] = (samples[index] ?? 0) + result.latency.samplesCount;
    });
  }
  return tasks.map(([name], index) => {
    const sorted = [...(medians[index] ?? [])].sort((a, b) => a - b);
    return {
      name,
      medianUs: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN,
      samples: samples[index] ?? 0,
    };
  }) as { [K in keyof Tasks]: Measurement };
}

export const us = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(1)} µs`;
