import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their sources, so tests run without a build.
const source = '@exchange-kit/source';

export default defineConfig({
  resolve: { conditions: [source, 'module', 'node', 'development|production'] },
  ssr: { resolve: { conditions: [source, 'module', 'node', 'development|production'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The site is built once per run, before the tests that open it.
    globalSetup: ['test/global-setup.ts'],
    hookTimeout: 90_000,
    testTimeout: 60_000,
  },
});
