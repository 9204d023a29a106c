/**
 * The release as `changeset publish` makes it, checked from the registry's side and then from a
 * stranger's project: what was published, and whether it installs and runs.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const registryUrl = inject('registryUrl');
const released = inject('released');
const clone = inject('clone');

interface Packument {
  'dist-tags': Record<string, string>;
  versions: Record<string, { dist: { tarball: string } }>;
}

const dependencyFields = [
  'dependencies',
  'devDependencies',
  'peerDependencies',
  'optionalDependencies',
] as const;

describe('the release', () => {
  it('gives every public package a first version and publishes it at that version', async () => {
    expect(released.length).toBeGreaterThanOrEqual(5);
    for (const pkg of released) {
      expect(pkg.version, pkg.name).not.toBe('0.0.0');
      const response = await fetch(`${registryUrl}${pkg.name.replace('/', '%2f')}`);
      expect(response.status, `${pkg.name} on the registry`).toBe(200);
      const packument = (await response.json()) as Packument;
      expect(packument['dist-tags'].latest, pkg.name).toBe(pkg.version);
    }
  });

  it('publishes manifests with no workspace: or catalog: range, internal ones at the released versions', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'exchange-kit-tarballs-'));
    try {
      for (const pkg of released) {
        const packument = (await (
          await fetch(`${registryUrl}${pkg.name.replace('/', '%2f')}`)
        ).json()) as Packument;
        const tarball = await fetch(packument.versions[pkg.version]?.dist.tarball ?? '');
        expect(tarball.status, `${pkg.name} tarball`).toBe(200);
        const file = join(scratch, `${pkg.name.replace('/', '+')}.tgz`);
        await writeFile(file, Buffer.from(await tarball.arrayBuffer()));
        const { stdout } = await run('tar', ['-xzOf', file, 'package/package.json']);
        const manifest = JSON.parse(stdout);
        expect(manifest.version).toBe(pkg.version);
        for (const field of dependencyFields) {
          for (const [name, range] of Object.entries<string>(manifest[field] ?? {})) {
            expect(range, `${pkg.name} ${field}.${name}`).not.toMatch(/^(workspace|catalog):/);
            const internal = released.find((other) => other.name === name);
            if (internal && field !== 'devDependencies') {
              expect(range, `${pkg.name} ${field}.${name}`).toBe(`^${internal.version}`);
            }
          }
        }
      }
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});

describe('the changeset check of pnpm test', () => {
  // In the release's clone, where `changeset version` has consumed every pending changeset.
  const check = (file: string, text: string) =>
    writeFile(join(clone, '.changeset', file), text).then(() =>
      run('node', ['.ci/changeset-status.mjs'], { cwd: clone }).finally(() =>
        rm(join(clone, '.changeset', file)),
      ),
    );
  const valid = `---\n"${released[0]?.name}": patch\n---\n\nA fix.\n`;

  it('reads and plans a valid changeset', async () => {
    const { stdout } = await check('valid-one.md', valid);
    expect(stdout).toContain(`changesets: 1 read, ${released[0]?.name}@`);
  });

  it('fails on a changeset whose packages sit in a comment', async () => {
    await expect(
      check('commented.md', `---\n\n## "${released[0]?.name}": patch\n\nA fix.\n`),
    ).rejects.toThrow(/could not parse changeset/);
  });

  it('fails on a changeset naming a package outside the workspace', async () => {
    await expect(
      check('stranger.md', '---\n"@exchange-kit/nowhere": patch\n---\n\nA fix.\n'),
    ).rejects.toThrow(/not in the workspace/);
  });

  it('is not undone by the formatter: biome leaves a changeset as written', async () => {
    const file = join(clone, '.changeset', 'formatted.md');
    await writeFile(file, valid);
    try {
      await run(join(clone, 'node_modules/.bin/biome'), ['check', '--write', file], { cwd: clone });
      expect(await readFile(file, 'utf8')).toBe(valid);
    } finally {
      await rm(file);
    }
  });
});

describe('a stranger installs the release with npm', () => {
  let project: string;
  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'exchange-kit-consumer-'));
    await run('npm', ['init', '-y'], { cwd: project });
    await run('npm', ['pkg', 'set', 'type=module'], { cwd: project });
    // Only our scope comes from the rehearsal's registry; the rest from the usual one.
    await writeFile(join(project, '.npmrc'), `@exchange-kit:registry=${registryUrl}\n`);
    // Optional peers too (vitest for the conformance suite's vitest entry): a user of every
    // entry installs them.
    const optionalPeers = released.flatMap((pkg) => {
      const peers = (pkg.manifest.peerDependencies ?? {}) as Record<string, string>;
      const meta = (pkg.manifest.peerDependenciesMeta ?? {}) as Record<
        string,
        { optional?: boolean }
      >;
      // A peer that is one of the released packages is installed by its name already.
      return Object.keys(meta)
        .filter((name) => meta[name]?.optional && !released.some((other) => other.name === name))
        .map((name) => `${name}@${peers[name]}`);
    });
    await run(
      'npm',
      ['install', '--no-audit', '--no-fund', ...released.map((pkg) => pkg.name), ...optionalPeers],
      { cwd: project, timeout: 150_000 },
    );
  });
  afterAll(() => rm(project, { recursive: true, force: true }));

  it('gets exactly the released versions', async () => {
    for (const pkg of released) {
      const installed = JSON.parse(
        await readFile(join(project, 'node_modules', pkg.name, 'package.json'), 'utf8'),
      );
      expect(installed.version, pkg.name).toBe(pkg.version);
    }
  });

  it('imports every export of every package as an ES module', async () => {
    const specifiers = released.flatMap((pkg) =>
      Object.keys(pkg.manifest.exports ?? { '.': '' })
        .filter((subpath) => !subpath.endsWith('.json'))
        .map((subpath) => `${pkg.name}${subpath.slice(1)}`),
    );
    await writeFile(
      join(project, 'imports.js'),
      `const names = {};
for (const specifier of ${JSON.stringify(specifiers)}) {
  names[specifier] = Object.keys(await import(specifier)).length;
}
console.log(JSON.stringify(names));
`,
    );
    const { stdout } = await run('node', ['imports.js'], { cwd: project });
    const names: Record<string, number> = JSON.parse(stdout);
    expect(Object.keys(names).sort()).toEqual([...specifiers].sort());
    // A subpath may hold types only (as contract/common); a package's main entry has values.
    for (const pkg of released) {
      if (pkg.name in names) expect(names[pkg.name], pkg.name).toBeGreaterThan(0);
    }
  });

  it('signs and computes with the installed code', async () => {
    await writeFile(
      join(project, 'use.js'),
      `import { createExchangeClient } from '@exchange-kit/exchange-client';
import { round, sum } from '@exchange-kit/core/decimal';
const seen = [];
const client = createExchangeClient({
  baseUrl: 'http://127.0.0.1:9',
  tokenId: '1',
  tokenSecret: 'secret',
  fetch: async (input, init) => {
    const request = new Request(input, init);
    seen.push(request.headers.get('x-service-auth'));
    return new Response('[]', { headers: { 'content-type': 'application/json' } });
  },
});
await client.products.list();
const [, payload] = seen[0].split('.');
console.log(JSON.parse(Buffer.from(payload, 'base64url').toString()).path);
console.log(sum('0.1', '0.2'), round('2.345', 2, 'half-even'));
`,
    );
    const { stdout } = await run('node', ['use.js'], { cwd: project });
    expect(stdout.split('\n')).toEqual(['/products', '0.3 2.34', '']);
  });

  it('runs every command the packages install', async () => {
    const bins = released.flatMap((pkg) =>
      typeof pkg.manifest.bin === 'string'
        ? [pkg.name.split('/')[1] as string]
        : Object.keys(pkg.manifest.bin ?? {}),
    );
    expect(bins).toContain('exchange-conformance');
    for (const bin of bins) {
      const { stdout } = await run('npx', ['--no-install', bin, '--help'], { cwd: project });
      expect(stdout, bin).toMatch(/\S/);
    }
    const { stdout } = await run('npx', ['--no-install', 'exchange-conformance', 'list'], {
      cwd: project,
    });
    expect(stdout).toMatch(/ORDER-CANCEL-LIVE/);
  });
});
