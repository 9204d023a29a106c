/**
 * Spec changes that the code does not follow must not pass unnoticed. Each experiment edits a
 * scratch copy of spec/, regenerates the contract from it into a scratch copy of
 * @exchange-kit/contract, and shows which check breaks: the sandbox's typecheck against the
 * regenerated contract, or the state-table check.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { checkStateTables, type StateTablesDocument } from './scripts/check-state-tables.js';
import { bundleApis, generate } from './scripts/codegen.js';

const run = promisify(execFile);
const specDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(specDir, '..');
const contractDir = join(repoRoot, 'packages/contract');
const sandboxDir = join(repoRoot, 'apps/sandbox');
const tsc = join(specDir, 'node_modules/.bin/tsc');
// Inside the packages, so the scratch contract finds zod and the sandbox's tsconfig finds
// @types/node the way the real ones do; `.tmp/` is ignored by git.
const scratchRoot = join(contractDir, '.tmp', `drift-${process.pid}`);
const scratchConfig = join(sandboxDir, '.tmp', `drift-${process.pid}`, 'tsconfig.json');

type Json = Record<string, unknown>;
type Edit = (files: { exchange: Json; partner: Json; stateTables: Json }) => void;

/** Copies spec/ and the contract, applies `edit` to the spec, and regenerates the contract. */
async function regenerate(edit: Edit): Promise<string> {
  await rm(scratchRoot, { recursive: true, force: true });
  const spec = join(scratchRoot, 'spec');
  await mkdir(spec, { recursive: true });
  for (const file of ['redocly.yaml', 'common.yaml', 'exchange.asyncapi.yaml'])
    await cp(join(specDir, file), join(spec, file));
  // Without its tests: the contract's own test run must never find a scratch copy of them.
  await cp(join(contractDir, 'src'), join(scratchRoot, 'packages/contract/src'), {
    recursive: true,
    filter: (source) => !/\.test(-d)?\.tsx?$/.test(source),
  });
  const read = async (file: string) => parse(await readFile(join(specDir, file), 'utf8')) as Json;
  const files = {
    exchange: await read('exchange.openapi.yaml'),
    partner: await read('partner.openapi.yaml'),
    stateTables: await read('state-tables.yaml'),
  };
  edit(files);
  await writeFile(join(spec, 'exchange.openapi.yaml'), stringify(files.exchange));
  await writeFile(join(spec, 'partner.openapi.yaml'), stringify(files.partner));
  await writeFile(join(spec, 'state-tables.yaml'), stringify(files.stateTables));
  for (const file of await generate(spec)) await writeFile(file.path, file.contents);
  return spec;
}

/** Type-checks the sandbox's sources against the scratch contract; the errors, one a line. */
async function sandboxTypeErrors(): Promise<string[]> {
  const contract = join(scratchRoot, 'packages/contract/src');
  const at = (file: string) => [relative(dirname(scratchConfig), join(contract, file))];
  await mkdir(dirname(scratchConfig), { recursive: true });
  await writeFile(
    scratchConfig,
    JSON.stringify({
      extends: relative(dirname(scratchConfig), join(sandboxDir, 'tsconfig.json')),
      compilerOptions: {
        paths: {
          '@exchange-kit/contract/exchange': at('exchange.ts'),
          '@exchange-kit/contract/partner': at('partner.ts'),
          '@exchange-kit/contract/common': at('common.ts'),
          '@exchange-kit/contract/state-tables': at('state-tables.ts'),
          '@exchange-kit/contract/exchange/schemas': at('generated/exchange.zod.ts'),
          '@exchange-kit/contract/partner/schemas': at('generated/partner.zod.ts'),
        },
      },
      include: [relative(dirname(scratchConfig), join(sandboxDir, 'src'))],
    }),
  );
  const result = await run(tsc, ['-p', scratchConfig]).then(
    () => ({ stdout: '' }),
    (error: { stdout: string }) => error,
  );
  return result.stdout.split('\n').filter((line) => line.includes('error TS'));
}

const schemas = (document: Json) => (document.components as Json).schemas as Record<string, Json>;

afterAll(async () => {
  await rm(scratchRoot, { recursive: true, force: true });
  await rm(dirname(scratchConfig), { recursive: true, force: true });
});

describe('a spec change the code does not follow', () => {
  it('compiles unchanged: the scratch copy alone breaks nothing', async () => {
    await regenerate(() => {});
    expect(await sandboxTypeErrors()).toEqual([]);
  }, 120_000);

  it('a new required field of Order breaks the sandbox typecheck (its order view)', async () => {
    await regenerate(({ exchange }) => {
      const order = schemas(exchange).Order as { required: string[]; properties: Json };
      order.required.push('settlement_venue');
      order.properties.settlement_venue = { type: 'string', description: 'Where it settles.' };
    });
    const errors = await sandboxTypeErrors();
    expect(errors.join('\n')).toMatch(/order-view\.ts.*settlement_venue/);
  }, 120_000);

  it('a new value of OrderStatus breaks the state-table check until its flags are given', async () => {
    const spec = await regenerate(({ exchange }) => {
      (schemas(exchange).OrderStatus as { enum: string[] }).enum.push('expired');
    });
    const document = parse(
      await readFile(join(spec, 'state-tables.yaml'), 'utf8'),
    ) as StateTablesDocument;
    expect(checkStateTables(document, await bundleApis(spec))).toEqual([
      'table order: state "expired" of OrderStatus has no flags',
    ]);
  }, 120_000);

  it('a REST schema renamed under an event payload stops the codegen, naming the event document', async () => {
    const renamed = regenerate(({ exchange }) => {
      const all = schemas(exchange);
      all.OwnFill = all.OwnExecution as Json;
      delete all.OwnExecution;
      const text = JSON.stringify(exchange).replaceAll('schemas/OwnExecution"', 'schemas/OwnFill"');
      Object.assign(exchange, JSON.parse(text));
    });
    await expect(renamed).rejects.toThrow(/exchange\.asyncapi\.yaml[\s\S]*OwnExecution/);
  }, 120_000);

  it('a new trading type breaks the sandbox typecheck until the sandbox decides it', async () => {
    await regenerate(({ exchange }) => {
      (schemas(exchange).TradingType as { enum: string[] }).enum.push('options');
    });
    expect((await sandboxTypeErrors()).join('\n')).toMatch(/orders\.ts.*options/);
  }, 120_000);
});
