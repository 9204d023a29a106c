// @vitest-environment node
/**
 * What a browser downloads: the hooks' entry bundled as a browser bundler would, with
 * `browser` conditions. No token signing reaches it at all; the session signer (jose and the
 * session JWT) is a chunk of its own, loaded with the first signed call. Its size budget is in
 * the repository's .size-limit.js.
 */
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));
const peers = ['react', 'react/jsx-runtime', 'react-dom', '@tanstack/react-query'];

async function bundle() {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    minify: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['@exchange-kit/source', 'browser'],
    jsx: 'automatic',
    external: peers,
    outdir: '/virtual',
    metafile: true,
    logLevel: 'silent',
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
  const named = (path: string) => path.slice(path.lastIndexOf('virtual/'));
  const initialNames = new Set([...initial].map(named));
  const code = (files: typeof result.outputFiles) => files.map((file) => file.text).join('\n');
  const inputsOf = (files: string[]) =>
    files.flatMap((file) => Object.keys(outputs[file]?.inputs ?? {}));
  const signerNames = new Set(
    Object.keys(outputs)
      .filter((file) => inputsOf([file]).some((input) => input.includes('session-signing.ts')))
      .map(named),
  );
  return {
    initialCode: code(result.outputFiles.filter((file) => initialNames.has(named(file.path)))),
    initialInputs: inputsOf([...initial]),
    signerCode: code(result.outputFiles.filter((file) => signerNames.has(named(file.path)))),
  };
}

describe('browser bundle', () => {
  it('downloads no jose and no signing code before a session signs its first call', async () => {
    const { initialCode, initialInputs } = await bundle();
    expect(initialInputs.some((input) => input.includes('partner-client/src/browser.ts'))).toBe(
      true,
    );
    expect(
      initialInputs.filter((input) => /jose|core\/src\/auth|sign-(web|node)/.test(input)),
    ).toEqual([]);
    expect(initialCode).not.toMatch(/HS256|createHmac|importKey|SignJWT/);
  });

  it('carries no token signing at all; the session signer is loaded later', async () => {
    const { signerCode, initialCode } = await bundle();
    expect(signerCode).toMatch(/HS256/);
    expect(signerCode).toContain('session_id');
    for (const code of [signerCode, initialCode]) {
      expect(code).not.toMatch(/X-Service-Auth|token_id|oauth_request_public_id|createHmac/);
    }
  });
});

describe('the trading entry', () => {
  const trading = fileURLToPath(new URL('../src/trading/index.ts', import.meta.url));
  const inputsOf = async (entryPoint: string) => {
    const result = await build({
      entryPoints: [entryPoint],
      bundle: true,
      write: false,
      minify: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['@exchange-kit/source', 'browser'],
      jsx: 'automatic',
      external: [...peers, '@exchange-kit/exchange-client'],
      metafile: true,
      logLevel: 'silent',
    });
    return Object.values((result.metafile as Metafile).outputs).flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
        .map(([input]) => input),
    );
  };

  it('is not in the partner flows: their entry carries none of it', async () => {
    const inputs = await inputsOf(entry);
    expect(inputs.filter((input) => input.includes('src/trading/'))).toEqual([]);
  });

  it('carries no signing and no partner client: the page brings its public client', async () => {
    const inputs = await inputsOf(trading);
    expect(inputs.some((input) => input.includes('src/trading/live-feed.ts'))).toBe(true);
    expect(inputs.filter((input) => /jose|core\/src\/auth|partner-client/.test(input))).toEqual([]);
  });
});
