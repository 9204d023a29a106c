import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's Chromium, headless, as every browser test of the repository runs it: the browser
 * playwright-core drives here is the system's, not one it downloads.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
