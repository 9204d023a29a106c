import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Registry } from './registry.js';
import { toolEnv } from './tools.js';
import { copyWorkingTree, publicPackages, run, type WorkspacePackage } from './workspace.js';

export interface Rehearsal {
  /** The clone the release ran in, after `changeset version`. */
  clone: string;
  /** Every public package with the version `changeset version` gave it. */
  released: WorkspacePackage[];
  /** What `changeset publish` printed. */
  publishLog: string;
  /** Seconds each step took, for the report of a slow run. */
  timings: Record<string, number>;
}

/**
 * What the release job does on a fresh clone, with the registry as the only difference:
 * install, build, `changeset version`, commit, `changeset publish`.
 */
export async function rehearseRelease(registry: Registry, scratch: string): Promise<Rehearsal> {
  const timings: Record<string, number> = {};
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    try {
      return await work();
    } finally {
      timings[name] = (Date.now() - started) / 1000;
    }
  };
  const clone = join(scratch, 'clone');
  await mkdir(clone, { recursive: true });
  const env = await toolEnv(scratch);
  const git = (...args: string[]) =>
    run('git', ['-c', 'user.name=release', '-c', 'user.email=release@localhost', ...args], {
      cwd: clone,
      env,
    });
  const sh = (file: string, args: string[]) =>
    run(file, args, { cwd: clone, env, maxBuffer: 64 * 1024 * 1024, timeout: 180_000 });

  await step('clone', async () => {
    await copyWorkingTree(clone);
    await git('init', '-q', '-b', 'main');
    await git('add', '-A');
    await git('commit', '-q', '-m', 'release candidate');
  });
  await step('install', () =>
    sh('pnpm', ['install', '--frozen-lockfile', '--prefer-offline', '--ignore-scripts']),
  );
  const toRelease = await publicPackages(clone);
  await step('build', () =>
    sh('pnpm', [
      '--recursive',
      '--workspace-concurrency=2',
      ...toRelease.flatMap((pkg) => ['--filter', pkg.name]),
      'run',
      'build',
    ]),
  );
  const changeset = join(clone, 'node_modules/.bin/changeset');
  await step('version', () => sh(changeset, ['version']));
  await git('add', '-A');
  await git('commit', '-q', '-m', 'version packages');

  const npmrc = join(scratch, 'publisher.npmrc');
  await writeFile(npmrc, `${registry.url.replace(/^https?:/, '')}:_authToken=${registry.token}\n`);
  const publishEnv = {
    ...env,
    npm_config_registry: registry.url,
    npm_config_userconfig: npmrc,
  };
  const published = await step('publish', () =>
    run(changeset, ['publish'], {
      cwd: clone,
      env: publishEnv,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 180_000,
    }),
  );
  const released = await publicPackages(clone);
  return {
    clone,
    released,
    publishLog: `${published.stdout}${published.stderr}`,
    timings,
  };
}
