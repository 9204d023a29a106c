/**
 * The shape of the sandbox's imports: the domain at the centre, HTTP and storage at the edges.
 * Read from the sources by madge; tests and their support files may reach across, code may not.
 */
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const sourceFolder = fileURLToPath(new URL('.', import.meta.url));
const tsConfig = fileURLToPath(new URL('../tsconfig.json', import.meta.url));

/** Test tooling: what tests share, and the `testing` export other packages' tests use. */
const testTooling = [
  /\.test-support\.ts$/,
  /(^|\/)test-support\.ts$/,
  /(^|\/)testing\.ts$/,
  /(^|\/)testing\//,
];

const isTestTooling = (file: string) => testTooling.some((pattern) => pattern.test(file));

/**
 * The import graph of the sources, file by file, paths relative to `src/`: of the code that
 * runs, or with the test tooling too.
 */
async function importGraph(
  typeImports: boolean,
  { withTestTooling = false } = {},
): Promise<Record<string, string[]>> {
  const detective = { skipTypeImports: !typeImports };
  const result = await madge(sourceFolder, {
    fileExtensions: ['ts'],
    tsConfig,
    excludeRegExp: [/\.test\.ts$/, ...(withTestTooling ? [] : testTooling)],
    detectiveOptions: { ts: detective, tsx: detective },
  });
  return result.obj();
}

/** The imports of test tooling by the files of `folders`. */
function toolingImportedBy(graph: Record<string, string[]>, folders: string[]): string[] {
  return Object.entries(graph).flatMap(([file, imports]) =>
    folders.includes(folderOf(file)) && !isTestTooling(file)
      ? imports.filter(isTestTooling).map((imported) => `${file} -> ${imported}`)
      : [],
  );
}

/** The folder a file is in under `src/`; a file at the top stands for itself. */
const folderOf = (file: string) => file.split('/')[0] ?? file;

/** The folder graph of a file graph: an edge where a file of one imports a file of another. */
function folderGraph(graph: Record<string, string[]>): Map<string, Set<string>> {
  const folders = new Map<string, Set<string>>();
  for (const [file, imports] of Object.entries(graph)) {
    const from = folderOf(file);
    const edges = folders.get(from) ?? new Set<string>();
    folders.set(from, edges);
    for (const imported of imports) {
      const to = folderOf(imported);
      if (to !== from) edges.add(to);
    }
  }
  return folders;
}

/** Each group of two or more folders that reach one another (Tarjan's strongly connected components). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
        group.push(member);
        if (member === node) break;
      }
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

function importsOf(graph: Record<string, string[]>, from: string, to: string): string[] {
  return Object.entries(graph).flatMap(([file, imports]) =>
    folderOf(file) === from
      ? imports.filter((imported) => folderOf(imported) === to).map((i) => `${file} -> ${i}`)
      : [],
  );
}

/** The domain and what it agrees on with the edge (`handling/`): no HTTP, no storage. */
const domainFolders = ['handling', 'state', 'exchange', 'partner'];
/** The folders of the code the sandbox runs. */
const runningFolders = [...domainFolders, 'http', 'store', 'pages'];

describe('imports between the sandbox folders', () => {
  it('finds cycles in a graph that has one', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c']]);
  });

  it('has no cycle between files, types included', async () => {
    const graph = await importGraph(true);
    expect(Object.keys(graph)).toContain('state/sequencer.ts');
    const result = await madge(graph);
    expect(result.circular()).toEqual([]);
  });

  it('has no cycle between folders, types included', async () => {
    expect(cycles(folderGraph(await importGraph(true)))).toEqual([]);
  });

  it('names only folders that exist: a renamed folder would leave its rules checking nothing', async () => {
    const folders = new Set(Object.keys(await importGraph(true)).map(folderOf));
    for (const folder of [...domainFolders, ...runningFolders]) {
      expect(folders, folder).toContain(folder);
    }
  });

  it('keeps HTTP and storage out of the domain, and storage out of the HTTP edge', async () => {
    const graph = await importGraph(true);
    for (const domain of domainFolders) {
      expect(importsOf(graph, domain, 'http'), domain).toEqual([]);
      expect(importsOf(graph, domain, 'store'), domain).toEqual([]);
    }
    expect(importsOf(graph, 'http', 'store')).toEqual([]);
  });

  it('keeps test tooling out of the code the sandbox runs', async () => {
    const graph = await importGraph(true, { withTestTooling: true });
    expect(Object.keys(graph)).toContain('testing/memory-sandbox.ts');
    expect(Object.keys(graph)).toContain('testing/fuzz/fuzz-sandbox.ts');
    expect(toolingImportedBy(graph, [...runningFolders, 'test-control'])).toEqual([]);
  });

  it('finds test tooling imported by the code the sandbox runs', () => {
    const graph = {
      'exchange/orders.ts': ['testing/trading.ts', 'state/journal.ts'],
      'testing/trading.ts': ['exchange/orders.ts'],
      'state/journal.ts': ['state/snapshot.test-support.ts'],
    };
    expect(toolingImportedBy(graph, ['exchange', 'state', 'testing'])).toEqual([
      'exchange/orders.ts -> testing/trading.ts',
      'state/journal.ts -> state/snapshot.test-support.ts',
    ]);
  });
});
