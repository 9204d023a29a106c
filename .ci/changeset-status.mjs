#!/usr/bin/env node
// `changeset status` reads only the changesets added since the base branch: run in a clone of
// main it would read none and pass whatever they hold. So this runs it in a scratch repository
// whose main is the workspace without its pending changesets and whose branch adds them all:
// every pending changeset is then parsed and planned, and one that does not parse, or names a
// package outside the workspace, fails the check.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const git = (cwd, ...args) =>
  execFileSync('git', ['-c', 'user.name=check', '-c', 'user.email=check@localhost', ...args], {
    cwd,
    encoding: 'utf8',
  });

// The working tree as it is, untracked files included, so a changeset not yet committed is
// checked too.
const files = git(root, 'ls-files', '-z', '--cached', '--others', '--exclude-standard')
  .split('\0')
  .filter(Boolean);
const pending = files.filter(
  (file) => /^\.changeset\/[^/]+\.md$/.test(file) && !file.endsWith('/README.md'),
);

const scratch = mkdtempSync(join(tmpdir(), 'changeset-status-'));
try {
  for (const file of files) {
    if (!existsSync(join(root, file))) continue; // deleted in the working tree
    mkdirSync(dirname(join(scratch, file)), { recursive: true });
    copyFileSync(join(root, file), join(scratch, file));
  }
  git(scratch, 'init', '-q', '-b', 'main');
  git(scratch, 'add', '-A', '--', '.', ...pending.map((file) => `:!${file}`));
  git(scratch, 'commit', '-q', '-m', 'base');
  git(scratch, 'checkout', '-q', '-b', 'pending');
  git(scratch, 'add', '-A');
  git(scratch, 'commit', '-q', '--allow-empty', '-m', 'pending changesets');

  const output = join(scratch, 'status.json');
  execFileSync(join(root, 'node_modules/.bin/changeset'), ['status', `--output=${output}`], {
    cwd: scratch,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const { changesets, releases } = JSON.parse(readFileSync(output, 'utf8'));
  if (changesets.length !== pending.length) {
    throw new Error(`${pending.length} changesets in .changeset/, ${changesets.length} read`);
  }
  console.log(
    `changesets: ${changesets.length} read, ${
      releases
        .filter((r) => r.type !== 'none')
        .map((r) => `${r.name}@${r.newVersion}`)
        .join(', ') || 'no release'
    }`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
