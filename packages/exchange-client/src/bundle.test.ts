import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

// The size budget of this bundle is in the repository's .size-limit.js.
describe('bundle', () => {
  it('exchange-client with core carries no decimal arithmetic', async () => {
    const result = await build({
      entryPoints: [new URL('./index.ts', import.meta.url).pathname],
      bundle: true,
      minify: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      conditions: ['@exchange-kit/source'],
      outdir: '/virtual',
      write: false,
      metafile: true,
    });
    // Arithmetic lives in @exchange-kit/core/decimal: a client that does no sums carries no decimal.js.
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => input.includes('decimal.js'))).toEqual([]);
  });
});
