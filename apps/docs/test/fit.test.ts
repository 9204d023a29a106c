/**
 * Every page of the built site at 1280 px: no table and no code block is wider than the
 * column it sits in, so nothing is clipped or hidden behind a scroll bar.
 */
import { readdir } from 'node:fs/promises';
import { relative } from 'node:path';
import { launchChromium } from '@exchange-kit/test-support/chromium';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DocsServer, distDir, startDocsServer } from '../src/serve.js';

let docs: DocsServer;
let browser: Browser;

beforeAll(async () => {
  [docs, browser] = await Promise.all([startDocsServer(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await docs?.close();
});

async function pages(): Promise<string[]> {
  const files = await readdir(distDir, { recursive: true });
  return files
    .filter((file) => file.endsWith('.html') && file !== '404.html')
    .map((file) => relative(distDir, `${distDir}${file}`))
    .sort();
}

/** What sticks out on the page now: each as "what: its width / the room it has". */
function overflowing(): string[] {
  const found: string[] = [];
  const label = (element: Element) => {
    const heading = [...document.querySelectorAll('.vp-doc h1, .vp-doc h2, .vp-doc h3')]
      .filter((h) => h.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING)
      .at(-1);
    return `${element.tagName.toLowerCase()} under "${heading?.textContent?.trim() ?? 'top'}"`;
  };
  for (const doc of document.querySelectorAll('.vp-doc')) {
    const column = doc.getBoundingClientRect();
    for (const element of doc.querySelectorAll('table, pre, div[class*="language-"]')) {
      const box = element.getBoundingClientRect();
      if (element.scrollWidth > element.clientWidth + 1) {
        found.push(`${label(element)}: ${element.scrollWidth} px in ${element.clientWidth} px`);
      } else if (box.right > column.right + 1 || box.left < column.left - 1) {
        found.push(
          `${label(element)}: reaches ${box.right} px, the column ends at ${column.right} px`,
        );
      }
    }
  }
  return found;
}

describe('pages that fit at 1280 px', () => {
  it('has no table or code block wider than its column on any page', async () => {
    const all = await pages();
    expect(all.length).toBeGreaterThan(30);
    expect(all).toContain('reference/state-tables.html');
    // Widths are the stylesheet's doing on the pre-rendered markup, which hydration keeps:
    // without scripts each page is laid out in a fraction of the time.
    const page = await browser.newPage({
      viewport: { width: 1280, height: 900 },
      javaScriptEnabled: false,
    });
    page.setDefaultTimeout(15_000);
    const problems: string[] = [];
    for (const path of all) {
      await page.goto(new URL(path, docs.url).href, { waitUntil: 'load' });
      await page.locator('.vp-doc').first().waitFor({ state: 'attached' });
      for (const problem of await page.evaluate(overflowing)) problems.push(`${path}: ${problem}`);
    }
    await page.close();
    expect(problems).toEqual([]);
  }, 240_000);
});
