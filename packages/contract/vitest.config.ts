import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their sources, so tests run without a build.
const source = '@exchange-kit/source';

export default defineConfig({
  resolve: { conditions: [source, 'module', 'browser', 'development|production'] },
  // CI runs two packages' tests at once on two cores: a test against a real server may take
  // several times what it takes alone, while a hang still ends the run.
  // Only the sources' tests: spec/'s drift test regenerates a scratch contract under `.tmp/`.
  test: { testTimeout: 30_000, include: ['src/**/*.test.{ts,tsx}'] },
  ssr: { resolve: { conditions: [source, 'module', 'node', 'development|production'] } },
  // The type tests (`*.test-d.ts`) are compiled by the package's `tsc --noEmit` (its typecheck).
});
