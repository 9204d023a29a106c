import { readFile } from 'node:fs/promises';
import { defaultAdapter } from '@exchange-kit/conformance';
import { describe, expect, it } from 'vitest';

/** The backquoted names of the paragraph that starts `Steps:` in a Markdown file. */
async function stepsNamedIn(path: URL): Promise<Set<string>> {
  const text = await readFile(path, 'utf8');
  const start = text.search(/^Steps:/m);
  const paragraph = start < 0 ? '' : (text.slice(start).split('\n\n')[0] as string);
  return new Set([...paragraph.matchAll(/`(\w+)`/g)].map((match) => match[1] as string));
}

describe('the adapter steps a server implementer reads of', () => {
  for (const [name, path] of [
    ['the server guide', new URL('../site/guide/server.md', import.meta.url)],
    ['the conformance README', new URL('../../../packages/conformance/README.md', import.meta.url)],
  ] as const) {
    it(`are every step the suite has, in ${name}`, async () => {
      const named = await stepsNamedIn(path);
      expect(Object.keys(defaultAdapter).filter((step) => !named.has(step))).toEqual([]);
    });
  }
});
