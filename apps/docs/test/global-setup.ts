/** Builds the site once per run (the reference pages generated, then VitePress) into dist/. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const docsDir = fileURLToPath(new URL('../', import.meta.url));
const bin = (name: string) => `${docsDir}node_modules/.bin/${name}`;

export default async function setup() {
  const started = Date.now();
  const run = promisify(execFile);
  await run(bin('tsx'), ['--conditions=@exchange-kit/source', 'scripts/generate.ts'], {
    cwd: docsDir,
  });
  await run(bin('vitepress'), ['build', 'site'], { cwd: docsDir, maxBuffer: 64 * 1024 * 1024 });
  console.info(`docs site built in ${Date.now() - started} ms`);
}
