/**
 * The one way to read a bundled spec: follow its local references, list its operations, and
 * find the operation a request names. The bundled documents hold local references only.
 */
type Json = Record<string, unknown>;

export interface OpenApiDocument {
  paths?: Record<string, Json>;
  components?: Record<string, Record<string, unknown>>;
  security?: Array<Record<string, string[]>>;
}

const methods = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** A path segment of a `#/...` pointer, escaped for JSON pointer and for the URI fragment. */
export function escapePointer(segment: string): string {
  return encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'));
}

const unescapePointer = (segment: string) =>
  decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~');

/**
 * Follows a chain of local `$ref`s to the value it names. Sibling keys of a reference (a
 * description, say) override the target's, as OpenAPI 3.1 has it.
 */
export function resolveRef<T>(document: OpenApiDocument, value: T | { $ref: string }): T {
  let current: unknown = value;
  for (let hops = 0; hops < 16; hops++) {
    const ref = (current as { $ref?: unknown } | null | undefined)?.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return current as T;
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Json | undefined)?.[unescapePointer(key)], document);
    if (target === undefined) throw new Error(`${ref} names nothing in the document`);
    const { $ref: _, ...siblings } = current as Json;
    current = Object.keys(siblings).length > 0 ? { ...(target as Json), ...siblings } : target;
  }
  throw new Error(`Reference chain too long at ${JSON.stringify(value)}`);
}

export interface SpecParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Json;
}

/** One operation of a document, with what every reader of it needs resolved. */
export interface SpecOperation {
  operationId: string;
  /** Upper case: `GET`, `PUT`... */
  method: string;
  /** The path template, `/orders/{order_id}`. */
  path: string;
  /** Pointer of the operation in its document, for schema references. */
  pointer: string;
  /** The operation object itself, references left as they are. */
  operation: Json;
  /** Path-level and operation-level parameters, references resolved. */
  parameters: SpecParameter[];
}

/** Every operation of a document, in the order of its paths. */
export function operationsOf(document: OpenApiDocument): SpecOperation[] {
  const found: SpecOperation[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const shared = (item.parameters as unknown[] | undefined) ?? [];
    for (const method of methods) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const parameters = [...shared, ...((operation.parameters as unknown[]) ?? [])].map(
        (parameter) => resolveRef(document, parameter as SpecParameter),
      );
      found.push({
        operationId: operation.operationId as string,
        method: method.toUpperCase(),
        path,
        pointer: `#/paths/${escapePointer(path)}/${method}`,
        operation,
        parameters,
      });
    }
  }
  return found;
}

type Segment =
  | { kind: 'literal'; text: string }
  /** `{name}`, or `prefix{name}` such as `client:{client_order_id}`. */
  | { kind: 'param'; prefix: string; name: string };

function parseSegment(text: string): Segment {
  const match = /^([^{}]*)\{([^{}]+)\}$/.exec(text);
  return match
    ? { kind: 'param', prefix: match[1] ?? '', name: match[2] ?? '' }
    : { kind: 'literal', text };
}

// How specific a segment is: a literal beats a prefixed parameter, which beats a bare one,
// so /orders/cancel_all wins over /orders/{order_id} and /orders/client:x over both.
const rankOf = (segment: Segment) =>
  segment.kind === 'literal' ? 0 : segment.prefix === '' ? 2 : 1;

export type RouteResolution<Route> =
  | {
      kind: 'matched';
      route: Route /** Path parameters, percent-decoded. */;
      path: Record<string, string>;
    }
  | { kind: 'not-found' }
  /** A path parameter is not valid percent-encoding. */
  | { kind: 'bad-encoding'; parameter: string };

interface Compiled<Route> {
  route: Route;
  method: string;
  segments: Segment[];
  rank: number[];
}

function matchSegments(segments: Segment[], raw: string[]): Record<string, string> | undefined {
  if (segments.length !== raw.length) return undefined;
  const path: Record<string, string> = {};
  for (const [index, segment] of segments.entries()) {
    const text = raw[index] ?? '';
    if (segment.kind === 'literal') {
      if (text !== segment.text) return undefined;
      continue;
    }
    if (!text.startsWith(segment.prefix) || text.length === segment.prefix.length) return undefined;
    path[segment.name] = text.slice(segment.prefix.length);
  }
  return path;
}

function compareRanks(a: number[], b: number[]): number {
  for (let index = 0; index < a.length; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * Finds, for a method and a raw (still percent-encoded) pathname, the most specific of the
 * routes given: the one whose first differing segment is the more literal.
 */
export function routeMatcher<Route extends { method: string; path: string }>(
  routes: readonly Route[],
): (method: string, pathname: string) => RouteResolution<Route> {
  const compiled: Compiled<Route>[] = routes.map((route) => {
    const segments = route.path.split('/').slice(1).map(parseSegment);
    return { route, method: route.method.toUpperCase(), segments, rank: segments.map(rankOf) };
  });
  return (method, pathname) => {
    const raw = pathname.split('/').slice(1);
    const wanted = method.toUpperCase();
    let best: { entry: Compiled<Route>; path: Record<string, string> } | undefined;
    for (const entry of compiled) {
      if (entry.method !== wanted) continue;
      const path = matchSegments(entry.segments, raw);
      if (!path) continue;
      if (!best || compareRanks(entry.rank, best.entry.rank) < 0) best = { entry, path };
    }
    if (!best) return { kind: 'not-found' };
    const decoded: Record<string, string> = {};
    for (const [name, value] of Object.entries(best.path)) {
      try {
        decoded[name] = decodeURIComponent(value);
      } catch {
        return { kind: 'bad-encoding', parameter: name };
      }
    }
    return { kind: 'matched', route: best.entry.route, path: decoded };
  };
}
