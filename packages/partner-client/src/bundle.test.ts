/**
 * What a browser downloads of the partner client. The size budget of its entry is in the
 * repository's .size-limit.js.
 */
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
  return {
    code: files.map((file) => file.text).join('\n'),
    inputs,
    /** Every module of every chunk, those loaded later included. */
    allInputs: Object.values(outputs).flatMap((output) => Object.keys(output.inputs)),
    // The chunk loaded later that sets the session's Authorization header.
    signerCode: result.outputFiles
      .filter((file) => !names.has(chunkName(file.path)) && file.text.includes('Bearer '))
      .map((file) => file.text)
      .join('\n'),
  };
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

  it('loads the session signer later, and it signs no token calls', async () => {
    const { signerCode, code } = await browserEntry();
    expect(signerCode).toMatch(/HS256/);
    expect(code).not.toMatch(/HS256/);
    expect(signerCode).not.toMatch(/X-Service-Auth|token_id|oauth_request_public_id|createHmac/);
  });

  it('keeps the schemas as they are: the zod compiler needs `new Function` and is not shipped', async () => {
    const { allInputs } = await browserEntry();
    expect(allInputs.some((input) => input.endsWith('contract/src/compile-web.ts'))).toBe(true);
    expect(allInputs.filter((input) => /compile-node|zod\/v4\/core\/compile/.test(input))).toEqual(
      [],
    );
  });
});
