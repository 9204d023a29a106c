/**
 * Which client method and which React hook make each operation's call, read from the packages'
 * sources with the TypeScript parser: a method names its operation by operationId
 * (`call('cancelOrder')`) or by method and path (`raw.POST('/api/v1/session')`), and a hook
 * calls client methods (`client.transactions.status(...)`). Nothing here lists them by hand,
 * so a method added, renamed or removed in a client shows on the pages at the next build.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { type ApiName, operations } from './openapi.js';

const packagesDir = fileURLToPath(new URL('../../../../packages/', import.meta.url));

export interface ClientCall {
  /** The package whose factory makes the client. */
  packageName: string;
  /** The call as written on a client, such as `client.orders.cancel(ref)`. */
  call: string;
  /** The method's path from the client, such as `orders.cancel`. */
  method: string;
}

export interface OperationCalls {
  clients: ClientCall[];
  /** Hooks of @exchange-kit/react-hooks that make the call. */
  hooks: string[];
}

const clientPackages: Record<ApiName, string> = {
  exchange: 'exchange-client',
  partner: 'partner-client',
};

/** A package's own sources: no tests, no generated code. */
function sources(pkg: string): ts.SourceFile[] {
  const dir = `${packagesDir}${pkg}/src/`;
  return readdirSync(dir)
    .filter((file) => /\.tsx?$/.test(file) && !/\.test(-d)?\.tsx?$/.test(file))
    .sort()
    .map((file) =>
      ts.createSourceFile(
        file,
        readFileSync(`${dir}${file}`, 'utf8'),
        ts.ScriptTarget.Latest,
        true,
        file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
      ),
    );
}

const nameOf = (name: ts.PropertyName | ts.BindingName | undefined) =>
  name && (ts.isIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined;

type Link =
  | { kind: 'member'; name: string; node: ts.MethodDeclaration | ts.PropertyAssignment }
  | { kind: 'object'; name: string }
  | { kind: 'function'; name: string };

const isFunction = (node: ts.Node | undefined) =>
  !!node && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));

/** The named things around `node`, outermost first: functions, objects and their members. */
function chain(node: ts.Node): Link[] {
  const links: Link[] = [];
  for (let at = node.parent; at; at = at.parent) {
    if (ts.isMethodDeclaration(at)) {
      const name = nameOf(at.name);
      if (name) links.unshift({ kind: 'member', name, node: at });
    } else if (ts.isPropertyAssignment(at)) {
      const name = nameOf(at.name);
      if (!name) continue;
      if (isFunction(at.initializer)) links.unshift({ kind: 'member', name, node: at });
      // An object written in place, or made by a function (`transactions: sessionCalls(call)`).
      else if (ts.isObjectLiteralExpression(at.initializer) || ts.isCallExpression(at.initializer))
        links.unshift({ kind: 'object', name });
    } else if (ts.isVariableDeclaration(at) && at.initializer) {
      const name = nameOf(at.name);
      if (name && ts.isObjectLiteralExpression(at.initializer)) {
        links.unshift({ kind: 'object', name });
      }
    } else if (ts.isFunctionDeclaration(at)) {
      const name = nameOf(at.name);
      if (name) links.unshift({ kind: 'function', name });
    }
  }
  return links;
}

function parameters(member: ts.MethodDeclaration | ts.PropertyAssignment): string {
  const fn = ts.isMethodDeclaration(member) ? member : (member.initializer as ts.ArrowFunction);
  return fn.parameters.map((p) => nameOf(p.name) ?? '…').join(', ');
}

const isFactory = (name: string) => /^(create|build)\w*Client$/.test(name);

interface Found {
  operationId: string;
  links: Link[];
}

/** Every place in a client's sources that names one of its interface's operations. */
function operationSites(api: ApiName, files: ts.SourceFile[]): Found[] {
  const ops = operations().filter((op) => op.api === api);
  const byId = new Set(ops.map((op) => op.operationId));
  const byRoute = new Map(ops.map((op) => [`${op.method} ${op.path}`, op.operationId]));
  const found: Found[] = [];
  const visit = (node: ts.Node) => {
    let operationId: string | undefined;
    if (ts.isStringLiteral(node) && byId.has(node.text)) operationId = node.text;
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      operationId = byRoute.get(`${node.expression.name.text} ${node.arguments[0].text}`);
    }
    if (operationId) found.push({ operationId, links: chain(node) });
    ts.forEachChild(node, visit);
  };
  for (const file of files) visit(file);
  return found;
}

/** The member of a factory that hands out what another function builds (`forUser` → userView). */
function callersOf(fn: string, files: ts.SourceFile[]): Link[][] {
  const callers: Link[][] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === fn
    ) {
      callers.push(chain(node));
    }
    ts.forEachChild(node, visit);
  };
  for (const file of files) visit(file);
  return callers;
}

/**
 * `client.a.b(x)` for a chain rooted in the factory, or in a function a factory member returns
 * or an object of the factory holds (spread or assigned: `transactions: { ...calls(call) }`).
 */
function spell(
  links: Link[],
  files: ts.SourceFile[],
  objectEnd = false,
): { call: string; method: string; called: boolean } | undefined {
  const last = links.at(-1);
  if (last?.kind !== 'member' && !(objectEnd && last?.kind === 'object')) return undefined;
  const root = links.findLastIndex((link) => link.kind === 'function');
  if (root === -1) return undefined;
  const rootName = (links[root] as Link).name;
  const path = links.slice(root + 1);
  if (path.some((link) => link.kind === 'function')) return undefined;
  const names = path.map((link) => link.name);
  const called = last.kind === 'member';
  const own = called ? `${names.join('.')}(${parameters(last.node)})` : names.join('.');
  if (isFactory(rootName)) return { call: `client.${own}`, method: names.join('.'), called };
  for (const caller of callersOf(rootName, files)) {
    const outer = spell(caller, files, true);
    if (outer) {
      const method = `${outer.method}${outer.called ? '()' : ''}.${names.join('.')}`;
      return { call: `${outer.call}.${own}`, method, called };
    }
  }
  return undefined;
}

function packageName(pkg: string): string {
  return JSON.parse(readFileSync(`${packagesDir}${pkg}/package.json`, 'utf8')).name as string;
}

/** Each operation's client methods and hooks, by operationId. */
export function operationCalls(): Map<string, OperationCalls> {
  const calls = new Map<string, OperationCalls>(
    operations().map((op) => [op.operationId, { clients: [], hooks: [] }]),
  );
  const methodOps = new Map<string, Set<string>>();
  for (const api of Object.keys(clientPackages) as ApiName[]) {
    const pkg = clientPackages[api];
    const files = sources(pkg);
    const name = packageName(pkg);
    const pairs = files.some((file) => /ByClientId`/.test(file.text));
    for (const site of operationSites(api, files)) {
      const spelled = spell(site.links, files);
      if (!spelled) continue;
      // The client picks `xByClientId` when the order is named by its client id
      // (`${operation}ByClientId` in its source): the same method makes both calls.
      const ids = [site.operationId];
      if (pairs && calls.has(`${site.operationId}ByClientId`)) {
        ids.push(`${site.operationId}ByClientId`);
      }
      for (const id of ids) {
        const entry = calls.get(id) as OperationCalls;
        if (!entry.clients.some((c) => c.call === spelled.call)) {
          entry.clients.push({ packageName: name, call: spelled.call, method: spelled.method });
        }
        if (api === 'partner') {
          const set = methodOps.get(spelled.method) ?? new Set();
          set.add(id);
          methodOps.set(spelled.method, set);
        }
      }
    }
  }

  // Hooks use the partner client, directly or through the package's own functions (query
  // option factories, the session keeper, other hooks): a hook makes the calls of every client
  // method it reaches.
  const direct = new Map<string, Set<string>>();
  const callees = new Map<string, Set<string>>();
  // A call belongs to the function it is written in and, inside a member function written in
  // a function (`open` of the session keeper, `queryFn` of a hook), to that function as well.
  const owners = (node: ts.Node, outer: string[]): string[] => {
    if (ts.isFunctionDeclaration(node) && node.name) return [node.name.text];
    const fn =
      (ts.isVariableDeclaration(node) || ts.isPropertyAssignment(node)) && node.initializer;
    const name = ts.isMethodDeclaration(node)
      ? nameOf(node.name)
      : fn && isFunction(fn)
        ? nameOf((node as ts.VariableDeclaration | ts.PropertyAssignment).name)
        : undefined;
    if (!name) return outer;
    return ts.isVariableDeclaration(node) && outer.length === 0 ? [name] : [...outer, name];
  };
  for (const file of sources('react-hooks')) {
    const visit = (node: ts.Node, outer: string[]) => {
      const current = owners(node, outer);
      if (current.length > 0 && ts.isCallExpression(node)) {
        const path: string[] = [];
        let target: ts.Expression = node.expression;
        while (ts.isPropertyAccessExpression(target)) {
          path.unshift(target.name.text);
          target = target.expression;
        }
        if (ts.isIdentifier(target)) path.unshift(target.text);
        const ids = new Set<string>();
        for (let start = 0; start < path.length; start++) {
          for (const id of methodOps.get(path.slice(start).join('.')) ?? []) ids.add(id);
        }
        for (const owner of current) {
          const called = callees.get(owner) ?? new Set();
          if (path.length > 0) called.add(path.at(-1) as string);
          callees.set(owner, called);
          const made = direct.get(owner) ?? new Set();
          for (const id of ids) made.add(id);
          direct.set(owner, made);
        }
      }
      ts.forEachChild(node, (child) => visit(child, current));
    };
    visit(file, []);
  }
  const reached = (hook: string): Set<string> => {
    const seen = new Set([hook]);
    const made = new Set<string>();
    const queue = [hook];
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      for (const id of direct.get(name) ?? []) made.add(id);
      for (const next of callees.get(name) ?? []) {
        if (callees.has(next) && !seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return made;
  };
  for (const hook of [...callees.keys()].filter((name) => /^use[A-Z]/.test(name)).sort()) {
    for (const id of reached(hook)) {
      const entry = calls.get(id) as OperationCalls;
      if (!entry.hooks.includes(hook)) entry.hooks.push(hook);
    }
  }
  return calls;
}
