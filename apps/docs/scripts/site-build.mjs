// Builds the docs site into dist/ unless dist/ was built from exactly the files there now.
// The key is a hash of every file the site is built from: the specs, the packages (their
// sources are the package reference, their types the operation pages), the docs' own pages,
// scripts and samples, and the lockfile that fixes the tools' versions. A changed spec or
// source is a new key, so an old site is never served for it.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const docsDir = fileURLToPath(new URL('../', import.meta.url));
const repoDir = fileURLToPath(new URL('../../../', import.meta.url));
const keyFile = `${docsDir}dist/.site-key`;

/** Where the site comes from, relative to the repository. */
export const siteSources = [
  'spec',
  'packages',
  'apps/docs',
  'pnpm-lock.yaml',
  'tsconfig.base.json',
];

// Tests, and what the build itself writes, shape no page.
const notSources = [
  /(^|\/)[^/]*\.test(-d)?\.tsx?$/,
  /^apps\/docs\/test\//,
  /^apps\/docs\/site\/\.vitepress\/cache\//,
];

/** The files the site is built from: tracked or new, never ignored (so no generated page). */
export async function siteFiles(root = repoDir) {
  const { stdout } = await promisify(execFile)(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...siteSources],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  );
  const files = stdout
    .split('\0')
    .filter((file) => file && !notSources.some((re) => re.test(file)));
  return [...new Set(files)].sort();
}

export async function siteKey(root = repoDir) {
  const hash = createHash('sha256');
  // Without git (a copy of the sources, not a clone) the files cannot be listed: a key of its
  // own every time, so the site is always built rather than served stale.
  const files = await siteFiles(root).catch(() => [`unlisted ${Date.now()} ${Math.random()}`]);
  for (const file of files) {
    // A tracked file deleted from the work tree counts as gone, not as an error.
    const content = await readFile(`${root}${file}`).catch(() => Buffer.from('\0deleted'));
    hash.update(`${file}\0${content.length}\0`).update(content);
  }
  return hash.digest('hex');
}

/** The key dist/ was built from, if a build finished there. */
export function builtKey() {
  if (!existsSync(`${docsDir}dist/index.html`) || !existsSync(keyFile)) return undefined;
  return readFileSync(keyFile, 'utf8').trim();
}

function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: docsDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: options.detached ?? false,
    });
    options.onChild?.(child);
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(Object.assign(new Error(`${command} ${args.join(' ')} failed`), { output, signal }));
    });
  });
}

/**
 * Builds the site unless dist/ holds a build of the current key. Resolves to whether it built.
 * `onChild` sees each build process, so a caller can stop it; `detached` gives each its own
 * process group, out of reach of the terminal's Ctrl-C, so only the caller decides.
 */
export async function ensureSiteBuilt(options = {}) {
  const key = await siteKey();
  if (!options.force && builtKey() === key) return false;
  const bin = (name) => `${docsDir}node_modules/.bin/${name}`;
  await run(bin('tsx'), ['--conditions=@exchange-kit/source', 'scripts/generate.ts'], options);
  // The site's config reads the reference from the workspace's sources, as the tests do: the
  // packages need no build first, on a fresh clone too.
  const vitepress = `${docsDir}node_modules/vitepress/bin/vitepress.js`;
  await run(bin('tsx'), ['--conditions=@exchange-kit/source', vitepress, 'build', 'site'], options);
  writeFileSync(keyFile, `${key}\n`);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  try {
    const built = await ensureSiteBuilt({ force: process.argv.includes('--force') });
    console.info(
      built
        ? `docs site built in ${Date.now() - started} ms`
        : 'docs site: dist/ is up to date with its sources',
    );
  } catch (error) {
    console.error(error.output ?? error.message);
    process.exit(1);
  }
}
