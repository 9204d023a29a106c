import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { siteFiles, siteKey } from '../scripts/site-build.mjs';

describe('the docs build key', () => {
  it('covers the specs, the packages and the docs sources, and not tests or generated pages', async () => {
    const files = await siteFiles();
    for (const source of [
      'spec/exchange.openapi.yaml',
      'spec/state-tables.yaml',
      'packages/exchange-client/src/index.ts',
      'packages/react-hooks/src/index.ts',
      'apps/docs/site/index.md',
      'apps/docs/site/.vitepress/theme/style.css',
      'apps/docs/src/reference/openapi.ts',
      'pnpm-lock.yaml',
    ]) {
      expect(files, source).toContain(source);
    }
    expect(files.filter((file) => /\.test\.tsx?$|^apps\/docs\/test\//.test(file))).toEqual([]);
    expect(files.filter((file) => file.startsWith('apps/docs/site/reference/exchange/'))).toEqual(
      [],
    );
  });

  it('changes when a spec, a package source or a docs page changes, and not for a test', async () => {
    // A repository of its own: changing this one would rebuild the site under other tests.
    const root = `${await mkdtemp(join(tmpdir(), 'site-key-'))}/`;
    try {
      execFileSync('git', ['init', '-q'], { cwd: root });
      const files = {
        'spec/exchange.openapi.yaml': 'openapi: 3.1.0\n',
        'packages/core/src/index.ts': 'export {};\n',
        'apps/docs/site/index.md': '# Home\n',
        'apps/docs/test/site.test.ts': 'test\n',
      };
      for (const [file, content] of Object.entries(files)) {
        await mkdir(dirname(`${root}${file}`), { recursive: true });
        await writeFile(`${root}${file}`, content);
      }
      let key = await siteKey(root);
      for (const file of Object.keys(files)) {
        await writeFile(`${root}${file}`, 'changed\n');
        const changed = await siteKey(root);
        if (file.includes('/test/')) expect(changed, file).toBe(key);
        else expect(changed, file).not.toBe(key);
        key = changed;
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('never matches a build outside a git work tree, where the files cannot be listed', async () => {
    const root = `${await mkdtemp(join(tmpdir(), 'site-key-'))}/`;
    try {
      expect(await siteKey(root)).not.toBe(await siteKey(root));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
