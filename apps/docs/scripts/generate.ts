/**
 * Writes every page derived from the code into site/: the API reference from spec/, the
 * state tables, the conformance requirements, and the package reference from the sources.
 * These pages are generated at build time only (gitignored).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { authSamples } from '../src/reference/auth-samples.js';
import { generatePackageReference } from '../src/reference/packages.js';
import { generatedPages } from '../src/reference/pages.js';

const site = fileURLToPath(new URL('../site/', import.meta.url));
const started = Date.now();

for (const dir of ['reference/exchange', 'reference/partner', 'reference/packages']) {
  await rm(`${site}${dir}`, { recursive: true, force: true });
}
const pages = generatedPages(await authSamples());
for (const [path, content] of Object.entries(pages)) {
  await mkdir(`${site}${path}`.replace(/[^/]+$/, ''), { recursive: true });
  await writeFile(`${site}${path}`, content);
}
await generatePackageReference(`${site}reference/packages`);
console.info(
  `generated ${Object.keys(pages).length} reference pages and the package reference in ${Date.now() - started} ms`,
);
