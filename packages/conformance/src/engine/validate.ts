import { bundledDocuments } from '@exchange-kit/contract/documents';
import { parseJson } from '@exchange-kit/core';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { type ApiName, escapePointer, type Operation, type Schema } from './spec.js';

/** One way a response differs from the spec, located by a JSON pointer into the body. */
export interface Violation {
  /** JSON pointer into the response body; `` for the body as a whole. */
  pointer: string;
  message: string;
  /** Where the spec says so, for example `#/components/schemas/Order/required`. */
  specPath?: string;
}

// The specs carry OpenAPI keywords (example, x-source, discriminator...) that are no JSON
// Schema vocabulary; strict mode would refuse them.
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
(addFormats as unknown as (instance: Ajv2020) => void)(ajv);
for (const [api, document] of Object.entries(bundledDocuments))
  ajv.addSchema(document as object, api);

const compiled = new Map<string, ValidateFunction>();

/** A validator for the schema at `pointer` (a `#/...` pointer) of an API's document. */
export function validatorAt(api: ApiName, pointer: string): ValidateFunction {
  const key = `${api}${pointer}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: key });
    compiled.set(key, validate);
  }
  return validate;
}

/** Validates `value` against the schema at `pointer`, as violations. */
export function validateAt(api: ApiName, pointer: string, value: unknown): Violation[] {
  const validate = validatorAt(api, pointer);
  if (validate(value)) return [];
  const seen = new Set<string>();
  const violations: Violation[] = [];
  for (const error of validate.errors ?? []) {
    // oneOf and anyOf repeat what their branches said; the branch errors are kept.
    if (error.keyword === 'oneOf' || error.keyword === 'anyOf' || error.keyword === 'if') continue;
    const pointerOf =
      error.keyword === 'required'
        ? `${error.instancePath}/${String(error.params.missingProperty).replaceAll('~', '~0').replaceAll('/', '~1')}`
        : error.instancePath;
    const message =
      error.keyword === 'required'
        ? 'required property is missing'
        : (error.message ?? error.keyword);
    const key = `${pointerOf} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push({ pointer: pointerOf, message, specPath: error.schemaPath });
  }
  return violations.slice(0, 20);
}

function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export interface ResponseCheck {
  violations: Violation[];
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
}

/**
 * Checks a response against its operation: the status must be documented, the content type
 * one of those documented for it, and a JSON body valid against the documented schema.
 */
export function checkResponse(
  op: Operation,
  status: number,
  contentType: string | null,
  text: string,
): ResponseCheck {
  const statusKey = String(status);
  const documented =
    op.responses[statusKey] ?? op.responses[`${statusKey[0]}XX`] ?? op.responses.default;
  let json: unknown;
  const type = mediaType(contentType);
  if (type.endsWith('json') && text !== '') {
    try {
      json = parseJson(text);
    } catch {
      return {
        violations: [
          { pointer: '', message: 'the body is not valid JSON although the content type says so' },
        ],
      };
    }
  }
  if (!documented) {
    return {
      json,
      violations: [
        {
          pointer: '',
          message: `status ${status} is not documented for ${op.operationId} (documented: ${Object.keys(op.responses).join(', ')})`,
          specPath: `${op.pointer}/responses`,
        },
      ],
    };
  }
  const content = documented.content;
  if (!content) return { json, violations: [] };
  const documentedKey =
    Object.keys(content).find((key) => mediaType(key) === type) ??
    (type === '' && text === '' ? undefined : null);
  if (documentedKey === null || documentedKey === undefined) {
    return {
      json,
      violations: [
        {
          pointer: '',
          message: `content type "${contentType ?? '(none)'}" is not documented for status ${status} (documented: ${Object.keys(content).join(', ')})`,
          specPath: `${op.pointer}/responses/${statusKey}/content`,
        },
      ],
    };
  }
  const schema: Schema | undefined = content[documentedKey]?.schema;
  if (!schema) return { json, violations: [] };
  const pointer = `${op.pointer}/responses/${statusKey}/content/${escapePointer(documentedKey)}/schema`;
  const body = json === undefined ? text : json;
  return { json, violations: schemaViolations(op, statusKey, documentedKey, pointer, body) };
}

function schemaViolations(
  op: Operation,
  statusKey: string,
  mediaKey: string,
  pointer: string,
  body: unknown,
): Violation[] {
  // A response given by $ref lives under components/responses, not under the operation.
  const raw = (
    bundledDocuments[op.api].paths as Record<
      string,
      Record<string, { responses: Record<string, { $ref?: string }> }>
    >
  )[op.path]?.[op.method.toLowerCase()]?.responses[statusKey];
  const where = raw?.$ref ? `${raw.$ref}/content/${escapePointer(mediaKey)}/schema` : pointer;
  return validateAt(op.api, where, body);
}
