import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their sources, so tests run without a build.
const source = '@exchange-kit/source';

export default defineConfig({
  resolve: { conditions: [source, 'module', 'browser', 'development|production'] },
  ssr: { resolve: { conditions: [source, 'module', 'node', 'development|production'] } },
  // globalSetup runs in vitest's own environment: it imports the sandbox's sources too.
  environments: {
    __vitest__: { resolve: { conditions: [source, 'module', 'node', 'development|production'] } },
  },
  test: {
    // Hook tests render under jsdom; the SSR, bundle and end-to-end tests say `node` themselves.
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.{ts,tsx}'],
    globalSetup: ['test/global-setup.ts'],
    // The type tests (`*.test-d.tsx`) are compiled by the package's `tsc --noEmit` (its typecheck).
    pool: 'threads',
    // One jsdom per worker instead of one per file: setting it up is most of a file's time.
    // Each test makes its own QueryClient, so files share nothing else.
    isolate: false,
    // Starting the sandbox's in-memory PostgreSQL takes seconds, more under load.
    hookTimeout: 60_000,
    testTimeout: 20_000,
  },
});
