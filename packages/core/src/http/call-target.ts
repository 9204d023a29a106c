import {
  createFinalURL,
  createQuerySerializer,
  defaultPathSerializer,
  removeTrailingSlash,
} from 'openapi-fetch';

/** Where one call goes: its absolute URL, and the path and query string that are signed. */
export interface CallTarget {
  url: string;
  path: string;
}

const querySerializer = createQuerySerializer();

/** A path template split once: its fixed parts, and between them the names of its parameters. */
interface Template {
  fixed: string[];
  names: string[];
}

const templates = new Map<string, Template | null>();

/** Null for a template whose parameters have a style of their own (`{.id}`, `{;id}`, `{id*}`). */
function templateOf(path: string): Template | null {
  let template = templates.get(path);
  if (template === undefined) {
    const pieces = path.split(/\{([^{}]+)\}/);
    const names = pieces.filter((_, index) => index % 2 === 1);
    template = names.some((name) => /^[.;]|\*$/.test(name))
      ? null
      : { fixed: pieces.filter((_, index) => index % 2 === 0), names };
    templates.set(path, template);
  }
  return template;
}

/**
 * A call to another path than the one meant fails here instead of going out: a parameter with
 * no value would go out as its `{name}`, or as an empty segment; a `.` or `..` segment is
 * resolved away by every URL parser; and a value that spells another operation's own path
 * (`/orders/{order_id}` with `cancel_all`) would be that operation, which the server routes
 * first. Each would be answered by another endpoint, or with a misleading 404.
 */
function refuseMisdirected(
  path: string,
  template: Template,
  values: Record<string, unknown> | undefined,
  concrete: ReadonlySet<string>,
): void {
  let filled = template.fixed[0] ?? '';
  for (const [index, name] of template.names.entries()) {
    const value = values?.[name];
    if (value === undefined || value === null || value === '') {
      const got = value === '' ? 'an empty string' : String(value);
      throw new TypeError(`${path}: path parameter ${name} is required, got ${got}`);
    }
    if (value === '.' || value === '..') {
      throw new TypeError(`${path}: path parameter ${name} cannot be '${value}'`);
    }
    filled += String(value) + (template.fixed[index + 1] ?? '');
  }
  if (template.names.length > 0 && concrete.has(filled)) {
    throw new TypeError(`${path}: path parameter values spell ${filled}, another operation's path`);
  }
}

/**
 * openapi-fetch's serialisation of a call's path and query, with the path of the usual call
 * (simple parameters with a string or number each) written from its template split once.
 */
function serialised(
  path: string,
  template: Template | null,
  params: Record<string, unknown>,
): string {
  const values = params.path as Record<string, unknown> | undefined;
  let written = template?.fixed[0];
  if (template && written !== undefined) {
    for (let index = 0; index < template.names.length; index++) {
      const value = values?.[template.names[index] as string];
      if (typeof value !== 'string' && typeof value !== 'number') {
        written = undefined;
        break;
      }
      written += encodeURIComponent(value) + template.fixed[index + 1];
    }
  }
  if (written === undefined) {
    return createFinalURL(path, {
      baseUrl: '',
      params,
      querySerializer,
      pathSerializer: defaultPathSerializer,
    });
  }
  const query = params.query ? querySerializer(params.query as Record<string, unknown>) : '';
  return query ? `${written}?${query}` : written;
}

// What a URL parser changes in what openapi-fetch writes: a `.` or `..` path segment, which it
// resolves, and `'` in the query, which it percent-encodes. Every other character openapi-fetch
// leaves unencoded is left alone by it too.
const changedByParsing = /'|\/\.{1,2}(?=[/?]|$)/;

/**
 * The targets of the calls of one base URL, among the operations' path templates `paths`. The
 * base is parsed once; a call's path and query,
 * as openapi-fetch serialises them, are parsed again only when a URL parser would change them,
 * so the path signed is always the one fetch or node:http puts on the wire.
 */
export function callTargets(baseUrl: string, paths: Iterable<string> = []) {
  const base = removeTrailingSlash(baseUrl);
  const concrete = new Set([...paths].filter((path) => !path.includes('{')));
  let parsedBase: URL | undefined;
  try {
    parsedBase = new URL(base);
  } catch {
    // A relative base URL resolves against the page with every call.
  }
  // A base with credentials, a query or a fragment is left to the parser whole.
  const plainBase =
    parsedBase &&
    !parsedBase.username &&
    !parsedBase.password &&
    !parsedBase.search &&
    !parsedBase.hash
      ? { origin: parsedBase.origin, path: removeTrailingSlash(parsedBase.pathname) }
      : undefined;

  function parsed(template: string, params: Record<string, unknown>): CallTarget {
    // Resolved against the page, not through `location`, which throws in Deno.
    const url = new URL(
      createFinalURL(template, {
        baseUrl: base,
        params,
        querySerializer,
        pathSerializer: defaultPathSerializer,
      }),
      globalThis.document?.baseURI,
    );
    return { url: url.href, path: url.pathname + url.search };
  }

  return (template: string, params: Record<string, unknown>): CallTarget => {
    const shape = templateOf(template);
    if (shape) {
      refuseMisdirected(
        template,
        shape,
        params.path as Record<string, unknown> | undefined,
        concrete,
      );
    }
    if (!plainBase) return parsed(template, params);
    const rest = serialised(template, shape, params);
    if (changedByParsing.test(rest)) return parsed(template, params);
    const path = plainBase.path + rest;
    return { url: plainBase.origin + path, path };
  };
}
