import { type ApiName, apiNames, bundledDocuments } from '@exchange-kit/contract/documents';
import {
  operationsOf,
  type RouteResolution,
  routeMatcher,
  type SpecParameter,
} from '@exchange-kit/contract/spec-reader';
import type { OperationObject } from './spec.js';

export interface Route {
  api: ApiName;
  method: string;
  /** The path template of the spec, `/orders/{order_id}`. */
  path: string;
  operation: OperationObject;
  /** Path-level and operation-level parameters, references resolved. */
  parameters: SpecParameter[];
}

export interface RouteMatch {
  route: Route;
  /** Path parameters, percent-decoded. */
  path: Record<string, string>;
}

/** The route table of both bundled specs: one route per operation. */
export function buildRoutes(): Route[] {
  return apiNames.flatMap((api) =>
    operationsOf(bundledDocuments[api]).map(({ method, path, operation, parameters }) => ({
      api,
      method,
      path,
      operation: operation as unknown as OperationObject,
      parameters,
    })),
  );
}

export type Resolution =
  | { kind: 'matched'; match: RouteMatch }
  | Exclude<RouteResolution<Route>, { kind: 'matched' }>;

const matchers = new WeakMap<Route[], ReturnType<typeof routeMatcher<Route>>>();

/**
 * `derive` as a function of a route that works each route's value out once, at its first
 * call: what the spec says of an operation does not change while a server runs.
 */
export function perRoute<T>(derive: (route: Route) => T): (route: Route) => T {
  const known = new WeakMap<Route, { value: T }>();
  return (route) => {
    let found = known.get(route);
    if (!found) {
      found = { value: derive(route) };
      known.set(route, found);
    }
    return found.value;
  };
}

/** Finds the most specific route for a method and a raw (still percent-encoded) pathname. */
export function findRoute(routes: Route[], method: string, pathname: string): Resolution {
  let find = matchers.get(routes);
  if (!find) {
    find = routeMatcher(routes);
    matchers.set(routes, find);
  }
  const found = find(method, pathname);
  return found.kind === 'matched' ? { kind: 'matched', match: found } : found;
}

/** The spec's path template in the router's syntax: `/orders/client:{id}` → `/orders/client:::id(…)`. */
export function routerPath(template: string): string {
  return template
    .split('/')
    .map((segment) => {
      const param = /^([^{}]*)\{([^{}]+)\}$/.exec(segment);
      if (!param) return segment.replaceAll(':', '::');
      const [, prefix = '', name] = param;
      // A prefixed parameter holds at least one character: `client:` alone is an order id.
      return `${prefix.replaceAll(':', '::')}:${name}${prefix ? '([\\s\\S]+)' : ''}`;
    })
    .join('/');
}

/**
 * The interface a pathname no route matches would belong to: the one whose paths start with
 * the same segment (`/api/...` for the partner's), so its miss answers in that interface's shape.
 */
export function apiOfPath(routes: Route[], pathname: string): ApiName {
  const first = pathname.split('/')[1];
  return routes.find((route) => route.path.split('/')[1] === first)?.api ?? 'exchange';
}

/** The methods some route answers on a pathname, for the `Allow` of a 405. */
export function allowedMethods(routes: Route[], pathname: string): string[] {
  const methods = [...new Set(routes.map((route) => route.method))];
  const allowed = methods.filter(
    (method) => findRoute(routes, method, pathname).kind === 'matched',
  );
  // The server answers HEAD wherever it answers GET.
  if (allowed.includes('GET')) allowed.push('HEAD');
  return allowed.sort();
}
