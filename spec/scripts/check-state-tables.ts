/**
 * Cross-checks spec/state-tables.yaml against the specs: every operation a requirement
 * names exists, documents the expected status code, and every state it names is a value
 * of the enum schema its table declares.
 */
import {
  operationsOf,
  type OpenApiDocument as ReaderDocument,
} from '@exchange-kit/contract/spec-reader';

interface Operation {
  api: string;
  responses: string[];
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
      operations.set(operationId, {
        api,
        responses: Object.keys((operation.responses as object | undefined) ?? {}),
      });
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
