/**
 * The commands the site gives a reader, as they would type them: one form of pnpm (the one
 * that needs nothing installed), and nothing that collides with what `start` already runs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { docsDir, handWritten } from './hand-written-pages.js';

const files = [
  ...handWritten(`${docsDir}site`),
  ...handWritten(`${docsDir}site/.vitepress/theme`, ['.vue', '.ts', '.tsx']),
];

/** Each line of each file, with where it is, for messages that point at it. */
const lines = files.flatMap((file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .map((text, index) => ({ at: `${file.slice(docsDir.length)}:${index + 1}`, text })),
);

/** A command on a line: from its start to the end of its inline code span, or of the line. */
function commands(pattern: RegExp): { at: string; command: string }[] {
  return lines.flatMap(({ at, text }) =>
    [...text.matchAll(new RegExp(`${pattern.source}[^\`\\n]*`, 'g'))].map((m) => ({
      at,
      command: m[0],
    })),
  );
}

describe('the commands of the site', () => {
  it('run pnpm one way, npx -y pnpm@10.34.9, which needs only Node.js and npm', () => {
    expect(files.length).toBeGreaterThan(5);
    expect(commands(/npx -y pnpm@10\.34\.9 /).length).toBeGreaterThan(5);
    // `pnpm` at the start of a command, not the version npx fetches.
    const other = commands(/(?<![\w@/.-])pnpm\s/);
    expect(other.map(({ at, command }) => `${at}: ${command}`)).toEqual([]);
  });

  it('start a second sandbox with a port and a data folder of its own', () => {
    const beside = commands(/\bpnpm@10\.34\.9 sandbox --port\b/);
    expect(beside.length).toBeGreaterThan(0);
    for (const { at, command } of beside) {
      expect(command, at).toMatch(/--data-dir \/|--memory\b/);
    }
  });

  it('preview a page on a port of its own, not the docs port 4173 that `start` takes', () => {
    const previews = commands(/\bvite preview\b/);
    expect(previews.length).toBeGreaterThan(0);
    for (const { at, command } of previews) {
      expect(command, at).toMatch(/--port (?!4173\b)\d+/);
    }
  });
});
