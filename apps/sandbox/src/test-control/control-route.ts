import { canonicalUuid } from '../handling/ids.js';
import type { Serialized } from '../http/reply-cache.js';
import { idNamed } from '../state/ids.js';
import type { Sequencer } from '../state/sequencer.js';
import type { TestClock } from './test-clock.js';

/**
 * What a path parameter of test control must be: read from its percent-decoded text, or
 * refused naming the parameter with `code`.
 */
export const parameterKinds = {
  integer: {
    code: 'must_be_an_integer',
    read: idNamed,
  },
  uuid: { code: 'must_be_a_uuid', read: canonicalUuid },
} as const;

export type ParameterKind = keyof typeof parameterKinds;

type ParametersOf<Kinds extends Record<string, ParameterKind>> = {
  [Name in keyof Kinds]: Exclude<
    ReturnType<(typeof parameterKinds)[Kinds[Name]]['read']>,
    undefined
  >;
};

/** One test-control call, its path parameters read as their kinds say. */
export interface ControlCall<Parameters = Record<never, never>> {
  sequencer: Sequencer;
  clock: TestClock;
  params: Parameters;
  /** The body, a JSON object. */
  body: Record<string, unknown>;
}

/** A row of the test-control table. */
export interface ControlRoute {
  method: string;
  /** The path template, its parameters in braces as in the specs: `/test/loans/{loan_id}/repay`. */
  path: string;
  params: Record<string, ParameterKind>;
  /** The keys its body takes: another is refused naming it, before the handler runs. */
  fields: readonly string[];
  handle(call: ControlCall<Record<string, unknown>>): Promise<Serialized>;
}

/**
 * A row of the table, its handler typed by the parameters' kinds. The template and `params`
 * must name the same parameters: a row that does not is a mistake found when the table loads.
 */
export function controlRoute<const Kinds extends Record<string, ParameterKind>>(
  method: string,
  path: string,
  params: Kinds,
  fields: readonly string[],
  handle: (call: ControlCall<ParametersOf<Kinds>>) => Promise<Serialized>,
): ControlRoute {
  const named = [...path.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]).sort();
  if (named.join() !== Object.keys(params).sort().join()) {
    throw new Error(`${method} ${path} declares the parameters ${Object.keys(params)}`);
  }
  return { method, path, params, fields, handle: handle as ControlRoute['handle'] };
}
