import { catalog, responseRequirementId } from '../../engine/catalog.js';
import { scenarios } from '../../engine/run.js';
import { deref, operation } from '../../engine/spec.js';
import { answeredOnlyAfterMissingSteps } from '../../engine/step-gated-answers.js';
import type { Fault } from '../fault-proxy.js';
import { is, type Row, withJson } from './proxied.js';

/** The first property a schema requires, following $ref and taking the first oneOf branch. */
function firstRequired(api: 'exchange' | 'partner', schema: unknown): string | undefined {
  const resolved = deref(api, schema) as Row | undefined;
  const branch = resolved?.oneOf ? deref(api, (resolved.oneOf as unknown[])[0]) : resolved;
  return ((branch as Row | undefined)?.required as string[] | undefined)?.[0];
}

/** Operations a 2xx of which needs an adapter step the sandbox gives through its test control. */
const answeredOnlyThroughTestControl = answeredOnlyAfterMissingSteps(scenarios);

/** For every operation: its 2xx response loses its first required field (or, for an array, gets a mistyped item). */
export const fieldFaults: Fault[] = catalog
  .filter((requirement) => requirement.kind === 'response')
  .map((requirement) => {
    const operationId = requirement.operations[0] as string;
    const op = operation(operationId);
    return {
      name: `${operationId} drops a required field`,
      covers: responseRequirementId(operationId),
      testControl: answeredOnlyThroughTestControl.has(operationId),
      response: (request, response) => {
        if (!is(request, operationId) || response.status >= 300) return response;
        const schema = Object.values(op.responses[String(response.status)]?.content ?? {})[0]
          ?.schema;
        return withJson(response, (body) => {
          if (Array.isArray(body)) return ['conformance', ...body.slice(1)];
          const field = firstRequired(op.api, schema);
          if (!field) return [];
          const { [field]: _dropped, ...rest } = body as Row;
          return rest;
        });
      },
    };
  });
