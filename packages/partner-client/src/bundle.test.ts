import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** What a browser downloads before the first call: the entry and what it imports statically. */
async function browserEntry(entry = './browser.ts') {
  const result = await build({
    entryPoints: [new URL(entry, import.meta.url).pathname],
    bundle: true,
    minify: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['@exchange-kit/source', 'browser'],
    outdir: '/virtual',
    write: false,
    metafile: true,
  });
  const outputs = (result.metafile as Metafile).outputs;
  const initial = new Set<string>();
  const visit = (file: string) => {
    if (initial.has(file) || !outputs[file]) return;
    initial.add(file);
    for (const imported of outputs[file].imports)
      if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(Object.keys(outputs).find((file) => outputs[file]?.entryPoint) as string);
  const chunkName = (path: string) => path.slice(path.lastIndexOf('virtual/') + 'virtual/'.length);
  const names = new Set([...initial].map(chunkName));
  const files = result.outputFiles.filter((file) => names.has(chunkName(file.path)));
  expect(files.length).toBeGreaterThan(0);
  const inputs = [...initial].flatMap((file) => Object.keys(outputs[file]?.inputs ?? {}));
  return { code: files.map((file) => file.text).join('\n'), inputs };
}

describe('browser entry', () => {
  it('carries no signing code: no jose, no node:crypto, no signer', async () => {
    const { code, inputs } = await browserEntry();
    expect(inputs.filter((input) => /jose|sign-node|sign-web|service-auth/.test(input))).toEqual(
      [],
    );
    expect(code).not.toMatch(/createHmac|SignJWT|HS256/);
  });

  it('would show the signer if the server entry were shipped to a browser instead', async () => {
    const { code, inputs } = await browserEntry('./index.ts');
    expect(inputs.some((input) => input.includes('jose'))).toBe(true);
    expect(code).toMatch(/HS256/);
  });

  it('stays within 10 kB min+gzip before the schemas load', async () => {
    const { code } = await browserEntry();
    const size = gzipSync(code).length;
    console.log(`partner-client browser entry: ${(size / 1024).toFixed(1)} kB min+gzip`);
    expect(size).toBeLessThanOrEqual(10 * 1024);
  });
});
