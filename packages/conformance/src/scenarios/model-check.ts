/**
 * The run every model-based scenario shares: random command sequences checked step by step
 * against a model, shrunk to the shortest that breaks it, reported as one requirement's
 * verdict with every call of that sequence.
 */
import fc from 'fast-check';
import { fastCheckSeed, reproduceWith } from '../engine/generate.js';
import { Failure, type RecordedCall, SetupError, Skip } from '../engine/outcome.js';
import type { ScenarioContext } from './scenario.js';

/** Sequences run beyond `--max-examples` to shrink a failing one. */
const shrinkSequences = 40;

export interface ModelCheck<Model extends object, Real extends { calls: RecordedCall[] }> {
  /** The requirement the run is evidence about, one of the suite's own ids. */
  requirementId: string;
  commands: fc.Arbitrary<fc.AsyncCommand<Model, Real>>[];
  maxCommands: number;
  /** Draw sequences at their longest, rather than fast-check's default size. */
  longest?: boolean;
  /**
   * Sequences run first, whatever the draw: the short paths through the model every server
   * must hold, so that finding a break on one does not depend on the seed.
   */
  examples?: ReadonlyArray<ReadonlyArray<fc.AsyncCommand<Model, Real>>>;
  model(): Model;
  real(): Real;
  /** What the model stands for, as a failure names it: `the state tables`. */
  modelled: string;
  /** What a passing run says, from the sequences run and the calls they made. */
  passed(sequences: number, calls: number): string;
}

/**
 * The steps of a sequence as they ran. fast-check's own text ends with a replayPath comment,
 * meaningless to a reader: the seed and path say how to run it again.
 */
function sequenceText(commands: Iterable<unknown>): string {
  return String(commands).replace(/\s*\/\*replayPath=.*\*\/$/s, '');
}

export async function checkModel<Model extends object, Real extends { calls: RecordedCall[] }>(
  context: ScenarioContext,
  check: ModelCheck<Model, Real>,
): Promise<void> {
  let budget = context.maxExamples + shrinkSequences;
  let smallest: { sequence: string; failure: Failure; calls: RecordedCall[] } | undefined;
  let sequences = 0;
  let calls = 0;
  const seed = fastCheckSeed(context.seed, check.requirementId);
  const sequence = fc.commands(check.commands, {
    maxCommands: check.maxCommands,
    ...(check.longest ? { size: 'max' as const } : {}),
  });
  const details = await fc.check(
    fc.asyncProperty(sequence, async (commands) => {
      if (budget-- <= 0) return true;
      const real = check.real();
      sequences++;
      try {
        await fc.asyncModelRun(() => ({ model: check.model(), real }), commands);
        calls += real.calls.length;
        return true;
      } catch (error) {
        // Only a broken expectation shrinks; a setup that broke stops the whole check.
        if (!(error instanceof Failure)) throw error;
        smallest = { sequence: sequenceText(commands), failure: error, calls: real.calls };
        return false;
      }
    }),
    {
      seed,
      numRuns: context.maxExamples,
      examples: (check.examples ?? []).map((commands): [Iterable<fc.AsyncCommand<Model, Real>>] => [
        commands,
      ]),
    },
  );
  await context.evidence.check(check.requirementId, async () => {
    if (details.failed && !smallest) {
      const cause = details.errorInstance;
      if (cause instanceof SetupError || cause instanceof Skip) throw cause;
      throw new SetupError(`the model run broke: ${String(cause)}`);
    }
    if (!smallest) return check.passed(sequences, calls);
    const failing = smallest.failure.details.call;
    throw new Failure(
      `the shortest sequence found that breaks ${check.modelled} (${details.numShrinks} shrinks): ${smallest.sequence}; ${smallest.failure.message}; ${reproduceWith(context.seed, seed, details.counterexamplePath)}`,
      {
        ...smallest.failure.details,
        // Every call of the sequence, in order, each with its curl line.
        steps: smallest.calls.filter((call) => call !== failing),
      },
    );
  });
}
