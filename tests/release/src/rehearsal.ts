import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Registry } from './registry.js';
import { toolEnv } from './tools.js';
import {
  copyWorkingTree,
  publicPackages,
  repoRoot,
  run,
  type WorkspacePackage,
} from './workspace.js';

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
  // A loaded machine builds slowly; a command cut short must fail the release, not thin it.
  const timeout = 600_000;
  await mkdir(clone, { recursive: true });
  const env = await toolEnv(scratch);
  const git = (...args: string[]) =>
    run('git', ['-c', 'user.name=release', '-c', 'user.email=release@localhost', ...args], {
      cwd: clone,
      env,
    });
  const sh = async (file: string, args: string[]) => {
    const running = run(file, args, { cwd: clone, env, maxBuffer: 64 * 1024 * 1024, timeout });
    const done = await running;
    // pnpm stopped by the timeout exits 0 with half its work done: a release must not go on.
    if (running.child.killed) {
      throw new Error(`${file} ${args.join(' ')}: stopped after ${timeout / 1000} s`);
    }
    return done;
  };

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
  // The clone's files are the workspace's, so the builds the workspace already made (in its
  // turbo cache) are this clone's: read them, never write them, and build the rest.
  await step('build', () =>
    sh(join(clone, 'node_modules/.bin/turbo'), [
      'run',
      'build',
      '--concurrency=2',
      `--cache-dir=${join(repoRoot, '.turbo/cache')}`,
      '--cache=local:r',
      ...toRelease.map((pkg) => `--filter=${pkg.name}`),
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
