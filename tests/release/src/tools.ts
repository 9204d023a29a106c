import { mkdir, readFile, symlink } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { repoRoot, run } from './workspace.js';

/**
 * The environment the release tools run in: no `npm_config_*` inherited from the `pnpm test`
 * that started us (it names the public registry), and a `pnpm` of the version the repository
 * pins on the PATH, as `changeset publish` calls `pnpm publish` by name.
 */
export async function toolEnv(scratch: string): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_(config|package|lifecycle)_/i.test(key)) env[key] = value;
  }
  const { packageManager } = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8'));
  const wanted = String(packageManager).replace(/^pnpm@/, '');
  const found = await run('pnpm', ['--version'], { env }).then(
    ({ stdout }) => stdout.trim(),
    () => undefined,
  );
  if (found !== wanted) {
    // The path of the pnpm npx fetches, found before the registry is redirected: a shim that
    // called npx at each use would look pnpm up in the rehearsal's registry.
    const { stdout } = await run('npx', ['-y', '-p', `pnpm@${wanted}`, '-c', 'command -v pnpm'], {
      env,
    });
    const bin = join(scratch, 'bin');
    await mkdir(bin, { recursive: true });
    await symlink(stdout.trim(), join(bin, 'pnpm'));
    env.PATH = `${bin}${delimiter}${env.PATH ?? ''}`;
  }
  return env;
}
