/**
 * VitePress fails the build on a link to a missing page; this also checks the anchors: every
 * internal link with a #fragment in the built site points at an id that exists on its page.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { distDir } from '../src/serve.js';

async function htmlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory()
        ? e.name === 'assets'
          ? []
          : htmlFiles(join(dir, e.name))
        : e.name.endsWith('.html')
          ? [join(dir, e.name)]
          : [],
    ),
  );
  return nested.flat();
}

describe('internal links of the built site', () => {
  it('every #anchor exists on its target page', async () => {
    const files = await htmlFiles(distDir);
    const pages = new Map<string, string>();
    for (const file of files)
      pages.set(`/${relative(distDir, file)}`, await readFile(file, 'utf8'));
    const broken: string[] = [];
    let checked = 0;
    for (const [path, html] of pages) {
      // Absolute, relative (`./x.html#y`) and same-page (`#y`) links alike; not another site's.
      for (const [, href] of html.matchAll(/href="((?![a-z]+:)[^"#]*#[^"]+)"/g)) {
        const [target = '', anchor = ''] = (href as string).split('#');
        const page = pages.get(new URL(target, `http://site${path}`).pathname);
        const id = decodeURIComponent(anchor);
        checked += 1;
        if (!page?.includes(`id="${id}"`)) broken.push(`${path} -> ${href}`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });
});
