/**
 * Every TypeScript sample on a hand-written page is a file under examples/ (type-checked with
 * the packages by `tsc`, the runnable ones run in examples.test.ts), included by region.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { docsDir, handWritten } from './hand-written-pages.js';

describe('code samples of the hand-written pages', () => {
  const files = handWritten(`${docsDir}site`);

  it('are no inline TypeScript: every one is an included, compiled file', () => {
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/^```(ts|tsx|typescript|js)\b/m);
    }
  });

  it('include files and regions that exist', () => {
    let includes = 0;
    for (const file of files) {
      for (const [, path, region] of readFileSync(file, 'utf8').matchAll(
        /^<<< @\/\.\.\/(\S+?)(?:#(\S+))?$/gm,
      )) {
        includes += 1;
        const target = `${docsDir}${path}`;
        expect(existsSync(target), `${file}: ${path}`).toBe(true);
        if (region) {
          const source = readFileSync(target, 'utf8');
          expect(source, `${path}#${region}`).toContain(`// #region ${region}\n`);
          expect(source, `${path}#${region}`).toContain(`// #endregion ${region}\n`);
        }
      }
    }
    expect(includes).toBeGreaterThan(20);
  });

  it('on the frontend guide, import only what its install lines install', () => {
    const page = readFileSync(`${docsDir}site/guide/frontend.md`, 'utf8');
    const installed = [...page.matchAll(/^npm install (?:--save-dev )?(.+)$/gm)].flatMap((match) =>
      (match[1] ?? '').split(' '),
    );
    expect(installed).toContain('@exchange-kit/react-hooks');
    const samples = [
      ...new Set(
        [...page.matchAll(/^<<< @\/\.\.\/(examples\/frontend\/[^\s#]+)/gm)].map((m) => m[1]),
      ),
    ];
    expect(samples.length).toBeGreaterThan(3);
    for (const sample of samples) {
      const source = readFileSync(`${docsDir}${sample}`, 'utf8');
      for (const [, specifier = ''] of source.matchAll(/^import [^'"]*['"]([^'"]+)['"]/gm)) {
        if (specifier.startsWith('.')) continue;
        // A package's name: its scope and name, without a subpath (react-dom/client).
        const name = specifier
          .split('/')
          .slice(0, specifier.startsWith('@') ? 2 : 1)
          .join('/');
        expect(installed, `${sample} imports ${specifier}`).toContain(name);
      }
    }
  });

  it('on the backend and server guides, are whole files: nothing a reader runs is hidden', () => {
    // The reconcile page is one bot, one file; the guides show many.
    const least = { backend: 4, reconcile: 1, server: 4 };
    for (const [page, count] of Object.entries(least)) {
      const text = readFileSync(`${docsDir}site/guide/${page}.md`, 'utf8');
      const includes = [...text.matchAll(/^<<< @\/\.\.\/(\S+)$/gm)].map((m) => m[1] as string);
      expect(includes.length, page).toBeGreaterThanOrEqual(count);
      for (const path of includes) {
        expect(path, `${page}.md`).not.toContain('#');
        expect(readFileSync(`${docsDir}${path}`, 'utf8'), path).not.toMatch(/#(end)?region/);
      }
    }
  });

  it("on the frontend guide, show the hooks package's own example components, not a copy", () => {
    // The hooks' example runs them in its end-to-end test; the guide's project links to them.
    const hooksExample = fileURLToPath(
      new URL('../../../packages/react-hooks/example/', import.meta.url),
    );
    for (const file of ['terms-acceptance.tsx', 'settlement-requirements.tsx']) {
      expect(realpathSync(`${docsDir}examples/frontend/${file}`), file).toBe(
        realpathSync(`${hooksExample}${file}`),
      );
    }
  });
});
