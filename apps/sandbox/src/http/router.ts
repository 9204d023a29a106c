import { type Api, resolve, type SpecOperation, type SpecParameter, specs } from './spec.js';

type Segment =
  | { kind: 'literal'; text: string }
  /** `{name}`, or `prefix{name}` such as `client:{client_order_id}`. */
  | { kind: 'param'; prefix: string; name: string };

export interface Route {
  api: Api;
  method: string;
  template: string;
  operation: SpecOperation;
  /** Path-level and operation-level parameters, references resolved. */
  parameters: SpecParameter[];
  segments: Segment[];
}

export interface RouteMatch {
  route: Route;
  /** Path parameters, percent-decoded. */
  path: Record<string, string>;
}

const methods = ['get', 'put', 'post', 'delete', 'patch'];

function parseSegment(text: string): Segment {
  const match = /^([^{}]*)\{([^{}]+)\}$/.exec(text);
  return match
    ? { kind: 'param', prefix: match[1] ?? '', name: match[2] ?? '' }
    : { kind: 'literal', text };
}

/** The route table of both bundled specs: one route per operation. */
export function buildRoutes(): Route[] {
  const routes: Route[] = [];
  for (const api of Object.keys(specs) as Api[]) {
    const spec = specs[api];
    for (const [template, item] of Object.entries(spec.paths)) {
      const shared = (item.parameters as SpecParameter[] | undefined) ?? [];
      for (const method of methods) {
        const operation = item[method] as SpecOperation | undefined;
        if (!operation) continue;
        const parameters = [...shared, ...(operation.parameters ?? [])].map((parameter) =>
          resolve<SpecParameter>(spec, parameter),
        );
        routes.push({
          api,
          method: method.toUpperCase(),
          template,
          operation,
          parameters,
          segments: template.split('/').slice(1).map(parseSegment),
        });
      }
    }
  }
  return routes;
}

// How specific a segment is: a literal beats a prefixed parameter, which beats a bare one,
// so /orders/cancel_all wins over /orders/{order_id} and /orders/client:x over both.
const rank = { literal: 0, prefixed: 1, bare: 2 } as const;

function segmentRank(segment: Segment): number {
  if (segment.kind === 'literal') return rank.literal;
  return segment.prefix ? rank.prefixed : rank.bare;
}

/** Matches the raw segments against a route; undefined when it does not fit. */
function matchSegments(route: Route, raw: string[]): Record<string, string> | undefined {
  if (route.segments.length !== raw.length) return undefined;
  const path: Record<string, string> = {};
  for (const [index, segment] of route.segments.entries()) {
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

export type Resolution =
  | { kind: 'matched'; match: RouteMatch }
  | { kind: 'not-found' }
  /** A parameter is not valid percent-encoding. */
  | { kind: 'bad-encoding'; parameter: string };

/** Finds the most specific route for a method and a raw (still percent-encoded) pathname. */
export function findRoute(routes: Route[], method: string, pathname: string): Resolution {
  const raw = pathname.split('/').slice(1);
  let best: { route: Route; path: Record<string, string>; score: number[] } | undefined;
  for (const route of routes) {
    if (route.method !== method) continue;
    const path = matchSegments(route, raw);
    if (!path) continue;
    const score = route.segments.map(segmentRank);
    if (!best || compareScores(score, best.score) < 0) best = { route, path, score };
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
  return { kind: 'matched', match: { route: best.route, path: decoded } };
}

function compareScores(a: number[], b: number[]): number {
  for (let index = 0; index < a.length; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
