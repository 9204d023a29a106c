import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

describe('bundle size', () => {
  it('exchange-client with core, runtime schemas included, stays within 22 kB min+gzip', async () => {
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
    // Every chunk counts, the lazily loaded schemas too: this is what a validating client runs.
    const size = gzipSync(result.outputFiles.map((file) => file.text).join('\n')).length;
    console.log(`exchange-client with core: ${(size / 1024).toFixed(1)} kB min+gzip`);
    // 22 kB since resending calls refused for their nonce and signing once the socket is
    // connected (about 0.4 kB; without them, concurrent calls of one token fail), and since the
    // operations table carries each call's statuses, security, permission and 422 codes.
    expect(size).toBeLessThanOrEqual(22 * 1024);
  });
});
