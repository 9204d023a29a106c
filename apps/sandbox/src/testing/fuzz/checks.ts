/**
 * The checks every answer to a fuzzed request must pass, each small and named, each failing
 * with what was received beside what the contract documents.
 */
import * as exchangeSchemas from '@exchange-kit/contract/exchange/schemas';
import * as partnerSchemas from '@exchange-kit/contract/partner/schemas';
import * as z from 'zod/mini';
import type { FuzzRequest } from './fuzz-requests.js';
import type { FuzzResponse } from './sandbox-caller.js';

type Schema = z.core.$ZodType;

export interface CheckedCase {
  request: FuzzRequest;
  answer: FuzzResponse;
  /** Whether the operation takes a body at all. */
  takesBody: boolean;
}

export interface Check {
  name: string;
  /** Undefined when the case passes; else what went wrong. */
  run(checked: CheckedCase): string | undefined;
}

const isJson = (contentType: string) => /^application\/json/i.test(contentType);

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const noServerError: Check = {
  name: 'no server error',
  run: ({ answer }) =>
    answer.status >= 500
      ? `Received ${answer.status} ${answer.text.slice(0, 300)}\nDocumented: a 4xx for a bad request, never a 5xx`
      : undefined,
};

function nonEmptyStrings(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((item) => typeof item === 'string' && item !== '')
  );
}

/**
 * A refusal says why: `errors` keyed by field with a reason each, or a `message`. A 401 may
 * be the conventional plain text (`API Authentication failed`), as both specs document.
 */
export const refusalNamesReason: Check = {
  name: 'a refusal names the field or the reason',
  run: ({ answer }) => {
    if (answer.status < 400 || answer.status >= 500) return undefined;
    if (answer.status === 401 && !isJson(answer.contentType) && answer.text.trim() !== '') {
      return undefined;
    }
    const body = isJson(answer.contentType) ? parsedJson(answer.text) : undefined;
    const { errors, message } = (body ?? {}) as { errors?: unknown; message?: unknown };
    const fieldsNamed =
      typeof errors === 'object' &&
      errors !== null &&
      Object.keys(errors).length > 0 &&
      Object.values(errors).every(nonEmptyStrings);
    if (fieldsNamed || (typeof message === 'string' && message.trim() !== '')) return undefined;
    return `Received ${answer.status} ${answer.contentType} ${JSON.stringify(answer.text.slice(0, 300))}\nDocumented: {errors: {field: [reason]}} or {message}`;
  },
};

const jsonMediaType = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/** A body sent as anything but JSON is refused for its type (415), unless refused sooner. */
export const nonJsonRefused: Check = {
  name: 'a body not sent as JSON is refused with 415',
  run: ({ request, answer, takesBody }) => {
    if (!takesBody || request.body === undefined || request.body.trim() === '') return undefined;
    if (jsonMediaType.test(request.contentType ?? '')) return undefined;
    // Refused before its body is read: no such route, a path that does not decode, too large.
    if ([404, 413, 415].includes(answer.status)) return undefined;
    return `Received ${answer.status} for content-type ${request.contentType ?? '(none)'}\nDocumented: 415 for any content type but application/json`;
  },
};

const schemaModules: Record<FuzzRequest['api'], Record<string, unknown>> = {
  exchange: exchangeSchemas,
  partner: partnerSchemas,
};

function bodySchema(request: FuzzRequest): Schema | undefined {
  const name = `z${request.operationId.replace(/^./, (first) => first.toUpperCase())}Body`;
  const schema = schemaModules[request.api][name];
  return typeof schema === 'object' && schema !== null && '_zod' in schema
    ? (schema as Schema)
    : undefined;
}

/** The branches of a union of object shapes, each with the keys it declares; else none. */
function shapeBranches(schema: Schema): { schema: Schema; keys: string[] }[] {
  // Read through the definition, which classic and mini schemas share.
  const def = schema._zod.def as { type: string; options?: Schema[] };
  if (def.type !== 'union' || !def.options) return [];
  return def.options.map((option) => {
    const shape = (option._zod.def as { shape?: Record<string, unknown> }).shape;
    return { schema: option, keys: Object.keys(shape ?? {}) };
  });
}

function issuesText(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`)
    .join('; ');
}

/**
 * Why the contract would not accept `body`, if it would not: its schema refuses it, or only
 * a branch of a union that reads none of its keys takes it, so every field it sends would be
 * ignored (`{"order": {"price": "1e5"}}` passing as an empty flat edit).
 */
function contractRefusal(schema: Schema, body: unknown): string | undefined {
  const result = z.safeParse(schema, body);
  if (!result.success) return issuesText(result.error.issues);
  const branches = shapeBranches(schema);
  if (branches.length === 0 || typeof body !== 'object' || body === null) return undefined;
  const sent = Object.keys(body);
  const reads = (branch: { keys: string[] }) => sent.some((key) => branch.keys.includes(key));
  const meant = branches.filter(reads);
  if (meant.length === 0) return undefined;
  const takenAsMeant = meant.some((branch) => z.safeParse(branch.schema, body).success);
  if (takenAsMeant) return undefined;
  const refusal = z.safeParse(meant[0]?.schema ?? schema, body);
  return `only a form that reads none of its fields takes it; as meant: ${refusal.success ? '' : issuesText(refusal.error.issues)}`;
}

/** A body the contract refuses is never accepted (the legacy wrapped edit once was). */
export const acceptedOnlyIfValid: Check = {
  name: 'a body the contract refuses is not accepted',
  run: ({ request, answer }) => {
    if (answer.status < 200 || answer.status >= 300 || request.body === undefined) return undefined;
    const schema = bodySchema(request);
    if (!schema || request.body.trim() === '') return undefined;
    const refusal = contractRefusal(schema, parsedJson(request.body));
    if (refusal === undefined) return undefined;
    return `Received ${answer.status} for a body the contract refuses (${refusal})\nDocumented: a 4xx naming the field`;
  },
};

export const answerChecks: readonly Check[] = [
  noServerError,
  refusalNamesReason,
  nonJsonRefused,
  acceptedOnlyIfValid,
];
