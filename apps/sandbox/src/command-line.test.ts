import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
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
    [['--max-connections', '0'], /^--max-connections: "0" is not a number of connections /],
    [
      ['--max-address-connections', 'lots'],
      /^--max-address-connections: "lots" is not a number of connections \(1 to 9999999\)$/,
    ],
  ];
  for (const [args, line] of refusals) {
    it(`refuses ${args.join(' ')} in one line naming it, and exits 2`, () => {
      const result = exchangeSandbox(args);
      expect(result.status).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
    });
  }

  it('names the connection bounds at start, the total fitted under ulimit -n', async () => {
    // A quarter of the 512 descriptors is kept for the store: 384 connections at most.
    const child = spawn(
      'sh',
      [
        '-c',
        'ulimit -n 512 && exec "$0" "$@"',
        process.execPath,
        'dist/main.js',
        '--memory',
        '--port',
        '0',
        '--max-address-connections',
        '20',
      ],
      { cwd: sandboxDir, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    child.stdout.resume();
    let printed = '';
    child.stdout.on('data', (chunk) => {
      printed += chunk;
      if (/^ready$/m.test(printed)) child.kill('SIGTERM');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await once(child, 'exit');
    clearTimeout(timer);
    expect(printed).toContain('\nready\n');
    expect(printed).toMatch(
      /^connections: +at most 20 per client address \(--max-address-connections\), 384 in all \(--max-connections, lowered from 10000 to fit under ulimit -n 512 beside the store's files\)/m,
    );
  });
});
