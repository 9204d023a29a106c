/**
 * Builds the site into dist/ once per run, unless dist/ already holds a build of exactly the
 * current sources (the key `pnpm start` uses too).
 */
import { ensureSiteBuilt } from '../scripts/site-build.mjs';

export default async function setup() {
  const started = Date.now();
  const built = await ensureSiteBuilt().catch((error: Error & { output?: string }) => {
    throw new Error(`the docs site did not build:\n${error.output ?? error.message}`);
  });
  console.info(
    built ? `docs site built in ${Date.now() - started} ms` : 'docs site: dist/ is up to date',
  );
}
