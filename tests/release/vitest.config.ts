import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // The release (install, build, version, publish) runs once before the first test.
    hookTimeout: 240_000,
    testTimeout: 180_000,
  },
});
