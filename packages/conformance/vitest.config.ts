import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their sources, so tests run without a build.
const source = '@exchange-kit/source';

export default defineConfig({
  resolve: { conditions: [source, 'module', 'browser', 'development|production'] },
  ssr: { resolve: { conditions: [source, 'module', 'node', 'development|production'] } },
  // The sandbox starts a PGlite (initdb in WebAssembly), and each conformance run is seconds of HTTP.
  test: { hookTimeout: 120_000, testTimeout: 60_000 },
});
