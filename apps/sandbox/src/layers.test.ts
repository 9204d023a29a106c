import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const sourceDir = fileURLToPath(new URL('./', import.meta.url));

/**
 * The sandbox's modules and what each imports, type-only imports included; tests and their
 * support files are wiring, left out.
 */
async function imports(): Promise<madge.MadgeInstance> {
  return madge(sourceDir, {
    fileExtensions: ['ts'],
    excludeRegExp: [
      /\.test\.ts$/,
      /\.test-support\.ts$/,
      /(^|\/)test-support\.ts$/,
      /\/testing\.ts$/,
    ],
    tsConfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)),
  });
}

describe('the sandbox modules', () => {
  it('import one another without a cycle', async () => {
    expect((await imports()).circular()).toEqual([]);
  });

  it('keep the domain from importing the store: storage depends on the domain', async () => {
    const graph = (await imports()).obj();
    const domainToStore = Object.entries(graph).flatMap(([module, dependencies]) =>
      /^(exchange|partner)\//.test(module)
        ? dependencies
            .filter((dependency) => dependency.startsWith('store/'))
            .map((dependency) => `${module} -> ${dependency}`)
        : [],
    );
    expect(Object.keys(graph)).toContain('exchange/sequencer.ts');
    expect(domainToStore).toEqual([]);
  });
});
