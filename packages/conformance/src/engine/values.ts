import { isDeepStrictEqual } from 'node:util';
import { bundledDocuments } from '@exchange-kit/contract/documents';
import { Decimal } from 'decimal.js';
import { isSuccess } from './context.js';
import type { RecordedCall } from './outcome.js';

/**
 * One check of a value requirement, as `spec/state-tables.yaml` writes it: a `kind` applied at
 * JSON pointers into a response body (the head of that file says what each kind means).
 */
export interface ValueCheck {
  kind: string;
  at: readonly string[];
  value?: unknown;
  pattern?: string;
  template?: string;
  when?: { at: string; value: unknown };
  as?: string;
  request?: string;
  absent?: null;
}

/** What a check may need besides the response: read from the run's other calls. */
export interface ValueContext {
  /** The base URL of the API the call went to, without a trailing slash. */
  baseUrl: string;
  /** The user context read in the same run, if one was. */
  user?: Record<string, unknown>;
  /** Products read in the same run, by id. */
  products: ReadonlyMap<string, Record<string, unknown>>;
  /**
   * When the answer was made, Unix milliseconds: by the server's clock (its Date header) when
   * it sent one, so that a server whose clock runs apart from the suite's is judged by its own.
   */
  answeredAt: number;
}

export interface ValueFinding {
  /** How many values were checked; 0 when nothing the check is about was in the answer. */
  checked: number;
  /** What broke, one sentence each, naming the JSON pointer. */
  problems: string[];
}

interface Found {
  pointer: string;
  value: unknown;
  /** The object or array holding the value. */
  parent: unknown;
}

const unescapeToken = (token: string) => token.replaceAll('~1', '/').replaceAll('~0', '~');

/** Every value at `pointer`, where `*` stands for each item of an array or value of an object. */
export function select(root: unknown, pointer: string): Found[] {
  let found: Found[] = [{ pointer: '', value: root, parent: undefined }];
  for (const token of pointer.split('/').slice(1).map(unescapeToken)) {
    const next: Found[] = [];
    for (const { pointer: at, value } of found) {
      if (typeof value !== 'object' || value === null) continue;
      const keys = token === '*' ? Object.keys(value) : Object.hasOwn(value, token) ? [token] : [];
      for (const key of keys)
        next.push({
          pointer: `${at}/${key}`,
          value: (value as Record<string, unknown>)[key],
          parent: value,
        });
    }
    found = next;
  }
  return found;
}

const decimalPattern = new RegExp(
  (
    (bundledDocuments.exchange.components as { schemas: Record<string, { pattern: string }> })
      .schemas.DecimalString as { pattern: string }
  ).pattern,
);

// Seconds of today are ten digits until the year 2286; milliseconds are thirteen.
const secondsRange = (n: number) => n >= 1e9 && n < 1e10;
const millisRange = (n: number) => n >= 1e12 && n < 1e13;
const utcMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
// A minute, and the second a Date header rounds away.
const takenWithinMs = 61_000;

const show = (value: unknown) => JSON.stringify(value) ?? 'undefined';

type Judge = (
  found: Found,
  check: ValueCheck,
  root: unknown,
  context: Judged,
) => string | null | undefined;

interface Judged extends ValueContext {
  request: unknown;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The pattern a template stands for, filled from `holder`, `user.*`, `product.*`; undefined
 * when one of them is unknown. `{base_url}` is any http(s) origin followed by the path of the
 * base URL the suite was given: a server behind a proxy names its own public host.
 */
function fill(template: string, holder: unknown, context: Judged): RegExp | undefined {
  let missing = false;
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const placeholder = /^\{([^}|]+)(\|lower)?\}$/.exec(part);
      if (!placeholder) return escapeRegExp(part);
      const [, name = '', lower] = placeholder;
      if (name === 'base_url')
        return `https?://[^/?#]+${escapeRegExp(new URL(context.baseUrl).pathname.replace(/\/+$/, ''))}`;
      const record = (holder ?? {}) as Record<string, unknown>;
      const value = name.startsWith('user.')
        ? context.user?.[name.slice(5)]
        : name.startsWith('product.')
          ? context.products.get(String(record.product_id))?.[name.slice(8)]
          : record[name];
      if (value === undefined || value === null) missing = true;
      return escapeRegExp(lower ? String(value).toLowerCase() : String(value));
    })
    .join('');
  return missing ? undefined : new RegExp(`^${source}$`);
}

function ordered(direction: 1 | -1): Judge {
  return ({ pointer, value }) => {
    if (!Array.isArray(value) || value.length < 2) return undefined;
    for (let index = 1; index < value.length; index++) {
      try {
        const before = new Decimal(String(value[index - 1]?.[0]));
        const after = new Decimal(String(value[index]?.[0]));
        if (after.comparedTo(before) * direction < 0) {
          return `${pointer}/${index} (${show(value[index]?.[0])}) comes after ${show(value[index - 1]?.[0])}: not ${direction === 1 ? 'ascending' : 'descending'}`;
        }
      } catch {
        return `${pointer}/${index} has no decimal first element to order by`;
      }
    }
    return null;
  };
}

/**
 * Each kind: null when the value holds, a sentence when it breaks, undefined when there was
 * nothing to judge (a condition that did not apply, a template value not known in this run).
 */
const judges: Record<string, Judge> = {
  'decimal-string': ({ pointer, value }) =>
    typeof value === 'string' && decimalPattern.test(value)
      ? null
      : `${pointer} is ${show(value)}, not a decimal string`,
  'decimal-string-or-null': ({ pointer, value }) =>
    value === null || (typeof value === 'string' && decimalPattern.test(value))
      ? null
      : `${pointer} is ${show(value)}, neither a decimal string nor null`,
  'unix-seconds': ({ pointer, value }) =>
    typeof value === 'number' && secondsRange(value)
      ? null
      : `${pointer} is ${show(value)}, not Unix seconds${typeof value === 'number' && millisRange(value) ? ' (it reads as milliseconds)' : ''}`,
  'unix-seconds-fraction': ({ pointer, value }) =>
    typeof value === 'string' && /^\d+\.\d+$/.test(value) && secondsRange(Number(value))
      ? null
      : `${pointer} is ${show(value)}, not a string of Unix seconds with a fractional part`,
  'unix-millis': ({ pointer, value }) =>
    Number.isInteger(value) && millisRange(value as number)
      ? null
      : `${pointer} is ${show(value)}, not an integer of Unix milliseconds`,
  'unix-millis-string': ({ pointer, value }) =>
    typeof value === 'string' && /^\d+$/.test(value) && millisRange(Number(value))
      ? null
      : `${pointer} is ${show(value)}, not a string of Unix milliseconds${typeof value === 'string' && secondsRange(Number(value)) ? ' (it reads as seconds)' : ''}`,
  'utc-millis': ({ pointer, value }) =>
    typeof value === 'string' && utcMillis.test(value) && !Number.isNaN(Date.parse(value))
      ? null
      : `${pointer} is ${show(value)}, not a UTC timestamp with milliseconds (YYYY-MM-DDTHH:MM:SS.sssZ)`,
  url: ({ pointer, value }) => {
    try {
      const protocol = new URL(String(value)).protocol;
      if (typeof value === 'string' && (protocol === 'http:' || protocol === 'https:')) return null;
    } catch {}
    return `${pointer} is ${show(value)}, not an absolute http(s) URL`;
  },
  equals: ({ pointer, value }, check) =>
    isDeepStrictEqual(value, check.value)
      ? null
      : `${pointer} is ${show(value)}, not ${show(check.value)}`,
  matches: ({ pointer, value }, check) =>
    typeof value === 'string' && new RegExp(check.pattern ?? '').test(value)
      ? null
      : `${pointer} is ${show(value)}, which does not match ${check.pattern}`,
  ascending: ordered(1),
  descending: ordered(-1),
  'newest-first': ({ pointer, value }) => {
    if (!Array.isArray(value) || value.length < 2) return undefined;
    // By time, then by id within one time; by id alone for records without a time (loan bids).
    const keyOf = (item: unknown) => {
      const row = (item ?? {}) as Record<string, unknown>;
      const time = row.created_at === undefined ? undefined : new Decimal(String(row.created_at));
      return { time, id: new Decimal(String(row.id)) };
    };
    for (let index = 1; index < value.length; index++) {
      try {
        const now = keyOf(value[index]);
        const before = keyOf(value[index - 1]);
        const byTime = now.time && before.time ? now.time.comparedTo(before.time) : 0;
        if ((byTime || now.id.comparedTo(before.id)) > 0) {
          const at = (key: typeof now) =>
            `id ${key.id.toFixed()}${key.time ? ` at ${key.time.toFixed()}` : ''}`;
          return `${pointer}/${index} (${at(now)}) is newer than ${pointer}/${index - 1} (${at(before)}): not newest first`;
        }
      } catch {
        return `${pointer}/${index} has no id to order by`;
      }
    }
    return null;
  },
  'null-when': ({ pointer, value, parent }, check, root) => {
    const when = check.when;
    if (!when) return undefined;
    // A bare field name is the holder's own: each row of a list answers for itself.
    const conditions = when.at.startsWith('/')
      ? select(root, when.at).map((found) => found.value)
      : [(parent as Record<string, unknown> | undefined)?.[when.at]];
    if (!conditions.some((condition) => isDeepStrictEqual(condition, when.value))) return undefined;
    return value === null
      ? null
      : `${pointer} is ${show(value)} where ${when.at} is ${show(when.value)}: it must be null`;
  },
  'same-as': ({ pointer, value }, check, root) => {
    const other = select(root, check.as ?? '')[0];
    if (!other) return undefined;
    return isDeepStrictEqual(value, other.value)
      ? null
      : `${pointer} is ${show(value)}, not ${show(other.value)} as ${check.as} is`;
  },
  echoes: ({ pointer, value }, check, _root, context) => {
    const sent = select(context.request, check.request ?? '')[0]?.value;
    if (sent === undefined) {
      if (check.absent !== null) return undefined;
      return value === null ? null : `${pointer} is ${show(value)}, yet the request gave none`;
    }
    return isDeepStrictEqual(value, sent)
      ? null
      : `${pointer} is ${show(value)}, not ${show(sent)} as the request gave at ${check.request}`;
  },
  'echoes-entries': ({ pointer, value }, check, _root, context) => {
    const sent = select(context.request, check.request ?? '')[0]?.value;
    if (typeof sent !== 'object' || sent === null || Object.keys(sent).length === 0)
      return undefined;
    for (const [name, entry] of Object.entries(sent)) {
      const echoed = (value as Record<string, unknown> | null)?.[name];
      if (!isDeepStrictEqual(echoed, entry))
        return `${pointer}/${name} is ${show(echoed)}, not ${show(entry)} as the request gave`;
    }
    return null;
  },
  template: ({ pointer, value, parent }, check, _root, context) => {
    const expected = fill(check.template ?? '', parent, context);
    if (expected === undefined) return undefined;
    return typeof value === 'string' && expected.test(value)
      ? null
      : `${pointer} is ${show(value)}, not of the shape ${check.template} (${expected.source})`;
  },
  'one-instant': ({ pointer, value }) => {
    const { unix_ms, iso8601 } = (value ?? {}) as Record<string, unknown>;
    if (unix_ms === undefined || iso8601 === undefined) return undefined;
    const parsed = Date.parse(String(iso8601));
    return parsed === Number(unix_ms)
      ? null
      : `${pointer}: iso8601 ${show(iso8601)} is ${Number.isNaN(parsed) ? 'not a time' : `${parsed - Number(unix_ms)} ms away from`} unix_ms ${show(unix_ms)}`;
  },
  'taken-now': ({ pointer, value }, _check, _root, context) => {
    const { unix_ms, ttl_ms } = (value ?? {}) as Record<string, unknown>;
    if (unix_ms === undefined || ttl_ms === undefined) return undefined;
    const taken = Number(unix_ms) - Number(ttl_ms);
    const off = taken - context.answeredAt;
    return Math.abs(off) <= takenWithinMs
      ? null
      : `${pointer}: unix_ms less ttl_ms is ${new Date(taken).toISOString()}, ${Math.round(off / 1000)} s from the answer at ${new Date(context.answeredAt).toISOString()}`;
  },
};

/** The kinds of check this suite knows, for the consistency test of the YAML. */
export const valueCheckKinds: readonly string[] = Object.keys(judges);

function parse(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Applies the checks of one value requirement to one successful answer. */
export function judgeValues(
  checks: readonly ValueCheck[],
  body: unknown,
  requestBody: string | undefined,
  context: ValueContext,
): ValueFinding {
  const judged: Judged = { ...context, request: parse(requestBody) };
  const finding: ValueFinding = { checked: 0, problems: [] };
  for (const check of checks) {
    const judge = judges[check.kind];
    if (!judge) throw new Error(`state-tables.yaml names the unknown value check "${check.kind}"`);
    for (const pointer of check.at) {
      const found = select(body, pointer);
      // An echo of a value the request gave must be there; any other absence is the schema's.
      if (found.length === 0 && check.kind.startsWith('echoes') && !pointer.includes('*')) {
        const sent = select(judged.request, check.request ?? '')[0]?.value;
        if (sent !== undefined && !(check.kind === 'echoes-entries' && isEmpty(sent))) {
          finding.checked++;
          finding.problems.push(`${pointer} is absent, yet the request gave ${check.request}`);
        }
        continue;
      }
      for (const item of found) {
        const problem = judge(item, check, body, judged);
        if (problem === undefined) continue;
        finding.checked++;
        if (problem !== null) finding.problems.push(problem);
      }
    }
  }
  return finding;
}

const isEmpty = (value: unknown) =>
  typeof value !== 'object' || value === null || Object.keys(value).length === 0;

/** The context of a call from the other calls of the run: its user context and products. */
export function valueContextOf(
  call: RecordedCall,
  calls: readonly RecordedCall[],
  baseUrl: string,
): ValueContext {
  const user = calls.findLast((c) => c.operationId === 'getUserContext' && isSuccess(c.status))
    ?.json as Record<string, unknown> | undefined;
  const products = new Map<string, Record<string, unknown>>();
  for (const c of calls) {
    if (!isSuccess(c.status)) continue;
    const listed =
      c.operationId === 'listProducts' && Array.isArray(c.json)
        ? c.json
        : c.operationId === 'getProduct'
          ? [c.json]
          : [];
    for (const product of listed as Record<string, unknown>[])
      if (product && product.id !== undefined) products.set(String(product.id), product);
  }
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    user,
    products,
    answeredAt: call.serverDate ?? call.receivedAt ?? Date.now(),
  };
}
