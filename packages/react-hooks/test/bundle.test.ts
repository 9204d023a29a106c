// @vitest-environment node
/**
 * What a browser downloads: the hooks' entry bundled as a browser bundler would, with
 * `browser` conditions. It must carry no signing code, and the hooks themselves (React,
 * TanStack Query, the partner client and the contract left out) must stay within 6 kB min+gzip.
 */
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));
const budgetBytes = 6 * 1024;
const peers = ['react', 'react/jsx-runtime', 'react-dom', '@tanstack/react-query'];

async function bundle(external: string[]) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    minify: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['@exchange-kit/source', 'browser'],
    jsx: 'automatic',
    external,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.text ?? '';
  return { code, inputs: Object.keys(result.metafile.inputs) };
}

describe('browser bundle', () => {
  it('carries no jose and no signing code, partner client included', async () => {
    const { code, inputs } = await bundle(peers);
    expect(inputs.some((input) => input.includes('partner-client/src/browser.ts'))).toBe(true);
    expect(inputs.filter((input) => /jose|core\/src\/auth|sign-(web|node)/.test(input))).toEqual(
      [],
    );
    expect(code).not.toMatch(/HS256|createHmac|importKey|SignJWT|X-Service-Auth/);
  });

  it('keeps the hooks within 6 kB min+gzip', async () => {
    const { code, inputs } = await bundle([
      ...peers,
      '@exchange-kit/partner-client',
      '@exchange-kit/contract/*',
    ]);
    expect(inputs.every((input) => input.startsWith('src/'))).toBe(true);
    const gzipped = gzipSync(code, { level: 9 }).length;
    console.info(`hooks browser entry: ${code.length} B minified, ${gzipped} B min+gzip`);
    expect(gzipped).toBeLessThanOrEqual(budgetBytes);
  });
});
