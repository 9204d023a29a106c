/** Faults of bad input: a request the server should refuse crashes it instead. */
import { deref, findOperation, requestSchemaPointer } from '../../engine/spec.js';
import { validatorAt } from '../../engine/validate.js';
import type { Fault } from '../fault-proxy.js';
import { parse, pathname, type Row, serverError } from './proxied.js';

export const inputFaults: Fault[] = [
  {
    name: 'malformed JSON crashes the server',
    covers: 'INPUT-MALFORMED-JSON',
    request: (request) =>
      request.body !== '' && parse(request.body) === undefined ? serverError() : request,
  },
  {
    name: 'a body of whitespace alone is read as no body',
    covers: 'INPUT-WHITESPACE-BODY',
    request: (request) =>
      request.body !== '' && request.body.trim() === '' ? { ...request, body: '' } : request,
  },
  {
    name: 'a negative quantity crashes the server',
    covers: 'INPUT-NEGATIVE-QUANTITY',
    request: (request) => (/"quantity":"-/.test(request.body) ? serverError() : request),
  },
];

// Each schema keyword a bad-input requirement breaks: a request breaking it crashes the server.
const keywordOf: Record<string, string> = {
  'INPUT-MISSING-REQUIRED': 'required',
  'INPUT-WRONG-TYPE': 'type',
  'INPUT-UNKNOWN-ENUM': 'enum',
  'INPUT-TOO-LONG': 'maxLength',
  'INPUT-PATTERN': 'pattern',
  'INPUT-UNKNOWN-FIELD': 'additionalProperties',
};

/**
 * Where in the spec the body is meant to be judged: through each oneOf, the member its
 * discriminator names, else the branch sharing most property names with it (so a flat order
 * is not judged as a wrapped one). A discriminator naming no member (missing, unknown) leaves
 * the fields every member shares, where that value breaks `required` or `enum` as it should.
 */
function branchFor(api: 'exchange' | 'partner', pointer: string, body: unknown): string {
  const schema = deref(api, { $ref: decodeURIComponent(pointer) }) as Row;
  const branches = (schema.oneOf as Row[] | undefined) ?? [];
  if (branches.length === 0 || typeof body !== 'object' || body === null) return pointer;
  const discriminator = schema.discriminator as
    | { propertyName: string; mapping?: Record<string, string> }
    | undefined;
  if (discriminator) {
    const named = discriminator.mapping?.[String((body as Row)[discriminator.propertyName])];
    if (named) return named;
    const bases = new Set(
      branches.map(
        (branch) =>
          ((deref(api, branch) as Row).allOf as Row[] | undefined)?.[0]?.$ref as string | undefined,
      ),
    );
    const [shared] = bases;
    return bases.size === 1 && shared ? shared : pointer;
  }
  const overlap = (branch: unknown) =>
    Object.keys(((deref(api, branch) as Row).properties as Row | undefined) ?? {}).filter(
      (name) => name in body,
    ).length;
  const best = branches.reduce<number>(
    (chosen, branch, index) => (overlap(branch) > overlap(branches[chosen]) ? index : chosen),
    0,
  );
  return branchFor(api, `${pointer}/oneOf/${best}`, body);
}

/** The schema errors of a request body, against the schema it is meant for. */
function requestErrors(
  api: 'exchange' | 'partner',
  pointer: string,
  body: unknown,
): { keyword: string; instancePath: string }[] {
  const validate = validatorAt(api, branchFor(api, pointer, body));
  return validate(body) ? [] : (validate.errors ?? []);
}

export const schemaFaults: Fault[] = Object.entries(keywordOf).map(([covers, keyword]) => ({
  name: `a request breaking its schema's ${keyword} crashes the server`,
  covers,
  request(request) {
    const op = findOperation(request.method, pathname(request));
    const pointer = op && requestSchemaPointer(op.operationId);
    const body = parse(request.body);
    if (!op || !pointer || body === undefined) return request;
    const errors = requestErrors(op.api, pointer, body);
    // A value of the wrong type breaks its enum and pattern too; that is the type's fault alone.
    // Likewise a value too long for its field breaks the field's pattern: the length's fault.
    const causes =
      keyword === 'type' ? [] : keyword === 'pattern' ? ['type', 'maxLength'] : ['type'];
    const explained = new Set(
      errors.filter((error) => causes.includes(error.keyword)).map((error) => error.instancePath),
    );
    const breaks = errors.some(
      (error) => error.keyword === keyword && !explained.has(error.instancePath),
    );
    return breaks ? serverError() : request;
  },
}));
