import type { ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { type BadInputCase, deriveBadInput } from '../engine/bad-input.js';
import { badInputOperations, profilesOf } from '../engine/catalog.js';
import {
  arbitraryOf,
  fastCheckSeed,
  maxFilterTries,
  reproduceWith,
  satisfying,
  unsatisfied,
} from '../engine/generate.js';
import { Failure, type RecordedCall, SetupError } from '../engine/outcome.js';
import { type ApiName, operation, requestSchema, requestSchemaPointer } from '../engine/spec.js';
import { validatorAt } from '../engine/validate.js';
import { type InputTarget, inputTargets, withFreshIds } from './input.js';
import type { Scenario, ScenarioContext } from './scenario.js';

type Row = Record<string, unknown>;

export const generatedValidId = 'INPUT-GENERATED-VALID';
export const generatedInvalidId = 'INPUT-GENERATED-INVALID';

// Fields that name the run's own things (its session, its key, ids that must not repeat): a
// generated body takes them from the fixture, so what is judged is the rest of the body.
const pinned = ['client_order_id', 'session_id', 'public_api_key', 'partner_order_id'];

// Calls a failure may spend on shrinking, beyond the examples themselves.
const shrinkCalls = 150;

const pin = (body: unknown, base: Row): unknown => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const copy = { ...(body as Row) };
  for (const field of pinned) if (field in base) copy[field] = base[field];
  return copy;
};

interface Found {
  body: unknown;
  call: RecordedCall;
  problem: string;
}

/** What a generated body must get: none of them a 5xx; a body breaking its schema a 4xx. */
const problemOf = (kind: 'valid' | 'invalid', call: RecordedCall): string | undefined => {
  if (call.status >= 500) return `answered ${call.status} (a server error)`;
  if (kind === 'invalid' && call.status < 400) return `accepted it (${call.status})`;
  return undefined;
};

/** The schema generated bodies are drawn from, and the validator that has the last word. */
export interface BodySchema {
  api: ApiName;
  schema: unknown;
  validate: ValidateFunction;
}

function requestBodySchema(operationId: string): BodySchema | undefined {
  const { api } = operation(operationId);
  const schema = requestSchema(operationId);
  const pointer = requestSchemaPointer(operationId);
  if (!schema || !pointer) return undefined;
  return { api, schema, validate: validatorAt(api, pointer) };
}

/**
 * Sends up to `maxExamples` generated bodies to one operation; on a failure, fast-check shrinks
 * the body (each candidate sent again) and the smallest that still fails is the evidence. A
 * schema the generator cannot meet (no valid body in `maxFilterTries` draws) is an ERROR
 * saying so, since no verdict about the server could be drawn from it.
 */
export async function generateBodies(
  context: ScenarioContext,
  target: InputTarget,
  kind: 'valid' | 'invalid',
  source: BodySchema,
): Promise<void> {
  const requirementId = kind === 'valid' ? generatedValidId : generatedInvalidId;
  const { operationId } = target;
  const { api, schema, validate } = source;
  const { call, base } = await target.prepare(context);
  const first = base(0);
  const valid = satisfying(
    arbitraryOf(api, schema).map((body) => pin(body, first)),
    (body) => validate(body) === true,
  );
  type Drawn = { body: unknown; description: string } | null | typeof unsatisfied;
  const bodies: fc.Arbitrary<Drawn> =
    kind === 'valid'
      ? valid.map((body) =>
          body === unsatisfied ? unsatisfied : { body, description: 'valid against its schema' },
        )
      : valid.chain((body): fc.Arbitrary<Drawn> => {
          if (body === unsatisfied) return fc.constant(unsatisfied);
          const cases = deriveBadInput(api, schema as Row, body as Row).filter(
            (c: BadInputCase) =>
              c.requirementId === 'INPUT-NEGATIVE-QUANTITY' || validate(c.body) !== true,
          );
          return cases.length === 0
            ? fc.constant(null)
            : fc.constantFrom(...cases.map((c) => ({ body: c.body, description: c.description })));
        });
  let index = 0;
  let budget = context.maxExamples + shrinkCalls;
  let sent = 0;
  let missed = 0;
  let smallest: Found | undefined;
  const seed = fastCheckSeed(context.seed, `${operationId}:${kind}`);
  const details = await fc.check(
    fc.asyncProperty(bodies, async (input) => {
      if (input === unsatisfied) {
        missed++;
        return true;
      }
      // Past the budget every candidate counts as passing: the shrinking stops where it got.
      if (input === null || budget-- <= 0) return true;
      const body = withFreshIds(input.body as Row, base(++index), first);
      const answered = await context.caller.call(operationId, { ...call, body });
      sent++;
      const problem = problemOf(kind, answered);
      if (!problem) return true;
      smallest = { body, call: answered, problem: `${input.description}: ${problem}` };
      return false;
    }),
    { seed, numRuns: context.maxExamples },
  );
  await context.evidence.check(requirementId, async () => {
    if (details.failed && smallest) {
      throw new Failure(
        `${operationId} ${smallest.problem}; the smallest body found (${details.numShrinks} shrinks): ${JSON.stringify(smallest.body)}; ${reproduceWith(context.seed, seed, details.counterexamplePath)}`,
        {
          received: `${smallest.call.status} ${smallest.call.responseText.slice(0, 200)}`,
          documented:
            kind === 'valid'
              ? 'a body valid against its schema is never answered 5xx (a 2xx, or a 4xx saying why)'
              : 'a body breaking its schema is answered 4xx, never 2xx or 5xx',
          call: smallest.call,
        },
      );
    }
    if (missed > 0) {
      throw new SetupError(
        `${operationId}: the generator found no body its request schema accepts in ${missed} of ${details.numRuns} examples (${maxFilterTries} draws each, fast-check seed ${seed}); the schema uses something the generator cannot meet, so nothing was judged of the server`,
      );
    }
    return `${operationId}: ${sent} generated bodies ${kind === 'valid' ? 'valid against the schema, none answered 5xx' : 'breaking the schema, each answered 4xx'}`;
  });
}

const generatedInput: Scenario = {
  name: 'request bodies generated from the request schemas',
  profile: 'input',
  // Generated edits and cancel_all filters may touch any live order of the account.
  exclusive: true,
  covers: [generatedValidId, generatedInvalidId],
  async run(context) {
    for (const target of inputTargets) {
      if (!badInputOperations.includes(target.operationId) || target.holdsWhenAccepted) continue;
      if (!profilesOf([target.operationId]).every((profile) => context.profiles.has(profile)))
        continue;
      const source = requestBodySchema(target.operationId);
      if (!source) continue;
      await generateBodies(context, target, 'valid', source);
      await generateBodies(context, target, 'invalid', source);
    }
  },
};

export const generatedScenarios: Scenario[] = [generatedInput];
