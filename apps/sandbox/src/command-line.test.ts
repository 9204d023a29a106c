import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sandboxOptions } from './command-line.js';

const sandboxDir = fileURLToPath(new URL('..', import.meta.url));

/** `exchange-sandbox ARGS` as a user runs it: the built bundle (build.global-setup.ts). */
function exchangeSandbox(args: string[]) {
  return spawnSync(process.execPath, ['dist/main.js', ...args], {
    cwd: sandboxDir,
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('the command line', () => {
  for (const flag of ['--help', '-h']) {
    it(`${flag} prints every option, one line each, and exits 0`, () => {
      const result = exchangeSandbox([flag]);
      expect(result.status).toBe(0);
      expect(result.stderr).toBe('');
      const lines = result.stdout.split('\n');
      expect(lines[0]).toBe('Usage: exchange-sandbox [options]');
      for (const name of Object.keys(sandboxOptions)) {
        const named = lines.filter((line) => new RegExp(`^ +(-\\w, )?--${name}\\b`).test(line));
        expect(named, name).toHaveLength(1);
      }
    });
  }

  const refusals: [string[], RegExp][] = [
    [['--bogus'], /^exchange-sandbox: unknown option --bogus; --help lists the options$/],
    [['-x'], /^exchange-sandbox: unknown option -x; --help lists the options$/],
    [['stray'], /^exchange-sandbox: unexpected argument "stray"; --help lists the options$/],
    [['--memory', 'stray'], /^exchange-sandbox: unexpected argument "stray"; /],
    [['--port'], /^exchange-sandbox: --port needs a value; --help lists the options$/],
    [['--port', '--memory'], /^exchange-sandbox: --port needs a value \("--memory" is taken/],
    [['--memory=yes'], /^exchange-sandbox: --memory takes no value; --help lists the options$/],
  ];
  for (const [args, line] of refusals) {
    it(`refuses ${args.join(' ')} in one line naming it, and exits 2`, () => {
      const result = exchangeSandbox(args);
      expect(result.status).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
    });
  }
});
