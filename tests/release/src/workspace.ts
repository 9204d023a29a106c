import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface WorkspacePackage {
  name: string;
  version: string;
  /** Relative to the workspace root. */
  dir: string;
  manifest: Record<string, unknown> & {
    private?: boolean;
    bin?: string | Record<string, string>;
    exports?: Record<string, unknown>;
  };
}

/** Every package of the workspace at `root`, read from the globs of pnpm-workspace.yaml. */
export async function workspacePackages(root: string): Promise<WorkspacePackage[]> {
  const yaml = await readFile(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const block = /^packages:\n((?:\s+-\s.*\n)+)/m.exec(yaml)?.[1] ?? '';
  const globs = [...block.matchAll(/^\s+-\s+['"]?([^'"\n]+?)['"]?\s*$/gm)].map(
    (m) => m[1] as string,
  );
  const dirs: string[] = [];
  for (const glob of globs) {
    if (glob.endsWith('/*')) {
      const parent = glob.slice(0, -2);
      for (const entry of await readdir(join(root, parent), { withFileTypes: true })) {
        if (entry.isDirectory()) dirs.push(`${parent}/${entry.name}`);
      }
    } else dirs.push(glob);
  }
  const packages: WorkspacePackage[] = [];
  for (const dir of dirs) {
    const file = join(root, dir, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(await readFile(file, 'utf8'));
    packages.push({ name: manifest.name, version: manifest.version, dir, manifest });
  }
  return packages;
}

/** The packages a release publishes: every workspace package not marked private. */
export async function publicPackages(root: string): Promise<WorkspacePackage[]> {
  return (await workspacePackages(root)).filter((pkg) => pkg.manifest.private !== true);
}

export const run = promisify(execFile);

/** The files of the working tree as a fresh clone would hold them, uncommitted changes included. */
export async function copyWorkingTree(target: string): Promise<void> {
  const { stdout } = await run(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 },
  );
  for (const file of stdout.split('\0').filter(Boolean)) {
    if (!existsSync(join(repoRoot, file))) continue;
    await mkdir(dirname(join(target, file)), { recursive: true });
    await copyFile(join(repoRoot, file), join(target, file));
  }
}
