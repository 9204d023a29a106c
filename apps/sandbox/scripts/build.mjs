// Bundles the sandbox and the workspace sources it uses into dist/main.js: one file loads
// in a fraction of the time tsx takes to compile the sources at every start.
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const { dependencies } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
// Fastify is some hundred small CommonJS files, zod and jose as many ES modules: bundled, a
// start does not resolve and read each one of them.
const bundled = ['fastify', '@fastify/cors', 'zod', 'jose'];
rmSync(new URL('dist/', root), { recursive: true, force: true });
await build({
  entryPoints: [new URL('src/main.ts', root).pathname],
  outfile: new URL('dist/main.js', root).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['@exchange-kit/source'],
  // Installed packages stay packages, resolved at run time (PGlite loads its WebAssembly from
  // beside its own module, CommonJS ones require Node's modules); only the workspace's
  // sources, which would otherwise be compiled at every start, go into the bundle.
  external: Object.keys(dependencies).filter(
    (name) => !name.startsWith('@exchange-kit/') && !bundled.includes(name),
  ),
  // Bundled CommonJS requires Node's modules by name: it is given a require of its own.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as bundledRequire } from 'node:module';\nconst require = bundledRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
// The store's thread is started from a file of its own, beside the module that starts it.
cpSync(new URL('src/store/pglite-worker.mjs', root), new URL('dist/pglite-worker.mjs', root));
// The migrations are read from beside the module that applies them.
cpSync(new URL('src/store/migrations/', root), new URL('dist/migrations/', root), {
  recursive: true,
});
