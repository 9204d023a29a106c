import stateTables from '@exchange-kit/spec/state-tables.json' with { type: 'json' };
import { describe, expect, it } from 'vitest';
import { renderStateTables } from './state-tables.js';

describe('state-tables page', () => {
  const page = renderStateTables();

  it('has a section per table and a line per requirement under its own table', () => {
    const sections = page.split(/^## /m).slice(1);
    expect(sections.map((s) => s.split('\n')[0])).toEqual(
      Object.values(stateTables.tables).map((t) => t.title),
    );
    for (const requirement of stateTables.requirements) {
      const title = stateTables.tables[requirement.table as keyof typeof stateTables.tables].title;
      const section = sections.find((s) => s.startsWith(`${title}\n`));
      expect(section).toContain(`| ${requirement.id} | ${requirement.level} |`);
    }
  });

  it('escapes pipes so a condition cannot break the table', () => {
    for (const line of page.split('\n').filter((l) => l.startsWith('| ') && !l.includes('---'))) {
      expect(line.split(/(?<!\\)\|/)).toHaveLength(11);
    }
  });
});
