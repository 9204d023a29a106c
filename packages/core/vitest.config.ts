import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their sources, so tests run without a build.
const source = '@exchange-kit/source';

export default defineConfig({
  resolve: { conditions: [source, 'module', 'browser', 'development|production'] },
  // Property tests run a few hundred cases: a CI machine running two tasks at once needs more
  // than the default 5 s, while a hang still ends the run.
  test: { testTimeout: 30_000 },
  ssr: { resolve: { conditions: [source, 'module', 'node', 'development|production'] } },
});
