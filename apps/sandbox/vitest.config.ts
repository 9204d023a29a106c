import { configDefaults, defineConfig } from 'vitest/config';

// Workspace packages resolve to their sources, so tests run without a build.
const source = '@exchange-kit/source';
// The tests run on PGlite; the `test` script then runs the store's own tests (src/store/,
// src/state/) again on PostgreSQL (scripts/with-postgres.mjs sets the URL): only what the
// database decides differs between the two; the rules and the HTTP edge answer the same.
// Files named *.postgres.test.ts need a server that takes calls side by side: second pass only.
const onPostgres = Boolean(process.env.SANDBOX_TEST_DATABASE_URL);

export default defineConfig({
  resolve: { conditions: [source, 'module', 'browser', 'development|production'] },
  ssr: { resolve: { conditions: [source, 'module', 'node', 'development|production'] } },
  test: {
    // Every test file starts a real PGlite (initdb in WebAssembly): seconds, more under load.
    hookTimeout: 60_000,
    testTimeout: 30_000,
    globalSetup: ['src/build.global-setup.ts'],
    exclude: onPostgres
      ? configDefaults.exclude
      : [...configDefaults.exclude, '**/*.postgres.test.ts'],
  },
});
