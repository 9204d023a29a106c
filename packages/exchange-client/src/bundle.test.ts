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
    // The client validates answers, never its own requests: no request schema comes along
    // (the generated schemas are marked pure, and it loads the response schemas alone), so
    // neither does the discriminated union of new orders, whose zod code says this.
    const text = result.outputFiles.map((file) => file.text).join('\n');
    expect(text).not.toContain('No matching discriminator');
  });

  it('precision, the one entry that carries decimal.js, carries neither transport nor schemas', async () => {
    const result = await build({
      entryPoints: [new URL('./precision.ts', import.meta.url).pathname],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'node',
      conditions: ['@exchange-kit/source'],
      write: false,
      metafile: true,
    });
    // What ends up in the bundle, not every file esbuild read on the way.
    const inputs = Object.values(result.metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
        .map(([input]) => input),
    );
    expect(inputs.some((input) => input.includes('decimal.js'))).toBe(true);
    // Types only from the client: rounding pulls in neither the transport nor the schemas.
    expect(inputs.filter((input) => /client\.ts|zod|openapi-fetch|jose/.test(input))).toEqual([]);
  });
});
