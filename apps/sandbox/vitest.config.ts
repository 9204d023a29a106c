import { configDefaults, defineConfig } from 'vitest/config';

// Workspace packages resolve to their sources, so tests run without a build.
const source = '@exchange-kit/source';
// The tests run twice: on PGlite, then on PostgreSQL (scripts/with-postgres.mjs sets the URL).
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
