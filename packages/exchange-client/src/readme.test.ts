/**
 * The README renders on npm as it reads here: every code block ends where its sample ends, so
 * no heading or prose after it is shown as code.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The headings a code block takes in, as CommonMark reads its fences. */
function headingsInCode(markdown: string): string[] {
  const swallowed: string[] = [];
  let fence: { backticks: string; shell: boolean } | undefined;
  for (const [index, line] of markdown.split('\n').entries()) {
    const marks = /^(`{3,})(.*)$/.exec(line);
    const [, backticks = '', info = ''] = marks ?? [];
    if (marks && fence === undefined) {
      fence = { backticks, shell: /^(sh|bash|shell)\b/.test(info) };
    } else if (marks && fence && backticks.length >= fence.backticks.length && !info.trim()) {
      // A fence closes with as many backticks or more and nothing after them.
      fence = undefined;
    } else if (fence && !fence.shell && /^#{1,6} /.test(line)) {
      // In a shell block such a line is a comment.
      swallowed.push(`${index + 1}: ${line}`);
    }
  }
  if (fence !== undefined) swallowed.push('the last code block is never closed');
  return swallowed;
}

describe('the README', () => {
  it('closes every code block before the next heading', () => {
    expect(headingsInCode(readme)).toEqual([]);
  });
});
