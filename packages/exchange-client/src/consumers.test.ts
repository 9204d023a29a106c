import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import spec from '@exchange-kit/spec/exchange.openapi.json' with { type: 'json' };
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Users get dist/ through the exports maps: link the built packages into a scratch project
// and use them from plain ESM, CommonJS and TypeScript under both module resolutions.
const run = promisify(execFile);
const packages = fileURLToPath(new URL('../../', import.meta.url));
const consumers = fileURLToPath(new URL('../consumers/', import.meta.url));
const tsc = fileURLToPath(new URL('../node_modules/.bin/tsc', import.meta.url));
const order = spec.components.responses.CancelledOrder.content['application/json'].example;

let scratch: string;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'exchange-kit-consumers-'));
  await mkdir(join(scratch, 'node_modules', '@exchange-kit'), { recursive: true });
  for (const name of ['core', 'exchange-client', 'partner-client']) {
    await symlink(
      join(packages, name),
      join(scratch, 'node_modules', '@exchange-kit', name),
      'dir',
    );
  }
  await cp(consumers, scratch, { recursive: true });
  server = createServer((request, response) => {
    const found = request.url === '/orders/client:a%20b';
    response.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
    response.end(JSON.stringify(found ? order : { message: 'Order not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const expected = { price: '9600000', notLive: true, partner: 'function' };

describe('consumer projects', () => {
  it('ESM import', async () => {
    const { stdout } = await run(process.execPath, ['esm/index.mjs'], {
      cwd: scratch,
      env: { ...process.env, BASE_URL: baseUrl },
    });
    expect(JSON.parse(stdout)).toEqual(expected);
  });

  it('CommonJS require()', async () => {
    const { stdout } = await run(process.execPath, ['cjs/index.cjs'], {
      cwd: scratch,
      env: { ...process.env, BASE_URL: baseUrl },
    });
    expect(JSON.parse(stdout)).toEqual(expected);
  });

  it.each(['ts-node16', 'ts-bundler'])('TypeScript, %s', { timeout: 60_000 }, async (project) => {
    const result = await run(tsc, ['-p', join(scratch, project, 'tsconfig.json')]).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout }),
    );
    expect(result.stdout).toBe('');
  });
});
