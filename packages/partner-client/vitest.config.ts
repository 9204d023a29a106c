import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their sources, so tests run without a build.
const source = '@exchange-kit/source';

export default defineConfig({
  resolve: { conditions: [source, 'module', 'browser', 'development|production'] },
  ssr: { resolve: { conditions: [source, 'module', 'node', 'development|production'] } },
  test: { typecheck: { enabled: true, include: ['src/**/*.test-d.ts'] } },
});
