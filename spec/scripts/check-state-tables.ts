/**
 * Cross-checks spec/state-tables.yaml against the specs: every operation a requirement
 * names exists, documents the expected status code, and every state it names is a value
 * of the enum schema its table declares.
 */
import {
  operationsOf,
  type OpenApiDocument as ReaderDocument,
  resolveRef,
} from '@exchange-kit/contract/spec-reader';

interface Operation {
  api: string;
  responses: string[];
  /** The schemas of its 2xx responses, where a value requirement's pointers must lead. */
  successSchemas: unknown[];
}

interface OpenApiDocument {
  paths?: Record<
    string,
    Record<string, { operationId?: string; responses?: Record<string, unknown> }>
  >;
  components?: { schemas?: Record<string, { enum?: unknown[] }> };
}

/** What code may need to know of a state; see the head of spec/state-tables.yaml. */
export const stateFlags = ['open', 'polled', 'terminal'] as const;

export interface StateTablesDocument {
  tables: Record<
    string,
    { states?: { api: string; schema: string; flags: Record<string, string[]> } }
  >;
  requirements: Array<{
    id: string;
    level: string;
    table: string;
    row: number;
    operations: string[];
    given?: string[];
    expect: { status: number; next?: string };
    source?: string;
    sentence?: string;
    check?: Array<{ kind?: string; at?: string[] }>;
  }>;
}

const idPattern = /^[A-Z0-9]+(-[A-Z0-9]+)*$/;

function operationsByIdOf(specs: Record<string, OpenApiDocument>): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  for (const [api, spec] of Object.entries(specs)) {
    for (const { operationId, operation } of operationsOf(spec as ReaderDocument)) {
      const responses = (operation.responses as Record<string, unknown> | undefined) ?? {};
      const successSchemas = Object.entries(responses)
        .filter(([status]) => status.startsWith('2'))
        .flatMap(([, response]) => {
          const resolved = resolveRef(spec as ReaderDocument, response as object) as {
            content?: Record<string, { schema?: unknown }>;
          };
          return Object.values(resolved.content ?? {}).map((media) => media.schema);
        });
      operations.set(operationId, { api, responses: Object.keys(responses), successSchemas });
    }
  }
  return operations;
}

/** Every state of every table has its flags, and only the states of its enum have them. */
function flagProblems(
  document: StateTablesDocument,
  specs: Record<string, OpenApiDocument>,
): string[] {
  const problems: string[] = [];
  for (const [name, table] of Object.entries(document.tables)) {
    if (!table.states) continue;
    const { api, schema, flags } = table.states;
    const values = (specs[api]?.components?.schemas?.[schema]?.enum ?? []) as string[];
    for (const value of values) {
      if (!flags?.[value])
        problems.push(`table ${name}: state "${value}" of ${schema} has no flags`);
    }
    for (const [state, given] of Object.entries(flags ?? {})) {
      if (!values.includes(state)) {
        problems.push(`table ${name}: flags name "${state}", which is not a value of ${schema}`);
      }
      for (const flag of given) {
        if (!(stateFlags as readonly string[]).includes(flag)) {
          problems.push(`table ${name}: state "${state}" has unknown flag "${flag}"`);
        }
      }
    }
  }
  return problems;
}

/**
 * Whether a JSON pointer (`*` for any item, key or property) can lead to a value of `schema`,
 * through any of its branches.
 */
function reaches(document: ReaderDocument, schema: unknown, pointer: string[]): boolean {
  const resolved = resolveRef(document, (schema ?? {}) as object) as Record<string, unknown>;
  if (pointer.length === 0) return true;
  const branches = ['oneOf', 'anyOf', 'allOf'].flatMap(
    (keyword) => (resolved[keyword] as unknown[] | undefined) ?? [],
  );
  if (branches.some((branch) => reaches(document, branch, pointer))) return true;
  const [head, ...rest] = pointer as [string, ...string[]];
  const properties = (resolved.properties as Record<string, unknown> | undefined) ?? {};
  const next = [
    ...(head === '*' ? Object.values(properties) : [properties[head]]),
    ...(head === '*' || /^\d+$/.test(head)
      ? [resolved.items, ...((resolved.prefixItems as unknown[]) ?? [])]
      : []),
    typeof resolved.additionalProperties === 'object' ? resolved.additionalProperties : undefined,
  ];
  return next.some((child) => child !== undefined && reaches(document, child, rest));
}

/** A pointer of a value check that no successful response of the requirement's operations has. */
function unreachablePointers(
  requirement: StateTablesDocument['requirements'][number],
  operations: Map<string, Operation>,
  specs: Record<string, OpenApiDocument>,
): string[] {
  const problems: string[] = [];
  for (const entry of requirement.check ?? []) {
    for (const pointer of entry.at ?? []) {
      const tokens = pointer.split('/').slice(1);
      const found = requirement.operations.some((operationId) => {
        const operation = operations.get(operationId);
        if (!operation) return false;
        const document = specs[operation.api] as ReaderDocument | undefined;
        return (
          document !== undefined &&
          operation.successSchemas.some((schema) => reaches(document, schema, tokens))
        );
      });
      if (!found)
        problems.push(
          `${requirement.id}: no successful response of ${requirement.operations.join(', ')} has ${pointer}`,
        );
    }
  }
  return problems;
}

/**
 * A statement about values quotes its sentence, takes its level from its source (the
 * description: MUST; the conventions: SHOULD) and says what to check, at JSON pointers.
 */
function valueProblems(requirement: StateTablesDocument['requirements'][number]): string[] {
  const { id, check } = requirement;
  if (!check) return [];
  const problems: string[] = [];
  if (!requirement.sentence?.trim()) problems.push(`${id}: quotes no sentence`);
  const level = { described: 'MUST', convention: 'SHOULD' }[requirement.source ?? ''];
  if (!level)
    problems.push(`${id}: source "${requirement.source}" is neither described nor convention`);
  else if (requirement.level !== level)
    problems.push(`${id}: a statement from source ${requirement.source} is a ${level}`);
  if (check.length === 0) problems.push(`${id}: check names nothing to check`);
  for (const entry of check) {
    if (!entry.kind) problems.push(`${id}: a check has no kind`);
    if (!entry.at?.length || entry.at.some((pointer) => !pointer.startsWith('/')))
      problems.push(`${id}: check ${entry.kind} needs \`at\`, JSON pointers starting with /`);
  }
  return problems;
}

/** Every problem found, as a sentence naming the requirement; empty when all is consistent. */
export function checkStateTables(
  document: StateTablesDocument,
  specs: Record<string, OpenApiDocument>,
): string[] {
  const problems: string[] = [];
  const operations = operationsByIdOf(specs);
  problems.push(...flagProblems(document, specs));
  const seen = new Set<string>();
  for (const requirement of document.requirements) {
    const { id } = requirement;
    if (!idPattern.test(id)) problems.push(`${id}: id is not of the form WORD-WORD`);
    if (seen.has(id)) problems.push(`${id}: id is used twice`);
    seen.add(id);
    problems.push(...valueProblems(requirement));
    if (requirement.check && requirement.operations.every((id) => operations.has(id)))
      problems.push(...unreachablePointers(requirement, operations, specs));
    if (requirement.level !== 'MUST' && requirement.level !== 'SHOULD') {
      problems.push(`${id}: level "${requirement.level}" is neither MUST nor SHOULD`);
    }
    if (!Number.isInteger(requirement.row) || requirement.row < 1) {
      problems.push(`${id}: row must be a positive integer`);
    }
    const table = document.tables[requirement.table];
    if (!table) {
      problems.push(`${id}: table "${requirement.table}" is not declared`);
      continue;
    }
    if (requirement.operations.length === 0) problems.push(`${id}: names no operation`);
    for (const operationId of requirement.operations) {
      const operation = operations.get(operationId);
      if (!operation) {
        problems.push(`${id}: operation "${operationId}" is in no spec`);
      } else if (!operation.responses.includes(String(requirement.expect.status))) {
        problems.push(
          `${id}: ${operationId} documents no ${requirement.expect.status} response (has ${operation.responses.join(', ')})`,
        );
      }
    }
    const states = requirement.given ?? [];
    const next = requirement.expect.next;
    if (!table.states) {
      if (states.length > 0 || next)
        problems.push(`${id}: table "${requirement.table}" has no states`);
      continue;
    }
    const schema = specs[table.states.api]?.components?.schemas?.[table.states.schema];
    const values = schema?.enum;
    if (!values) {
      problems.push(`${id}: ${table.states.api} spec has no enum schema ${table.states.schema}`);
      continue;
    }
    for (const state of [...states, ...(next && next !== 'unchanged' ? [next] : [])]) {
      if (!values.includes(state)) {
        problems.push(`${id}: state "${state}" is not a value of ${table.states.schema}`);
      }
    }
  }
  return problems;
}
