// The end-to-end test drives Debian's Chromium (playwright's own browser download cannot work
// here); install it when it is missing.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const chromiumPath = '/usr/bin/chromium';

if (!existsSync(chromiumPath)) {
  console.info(`${chromiumPath} is missing: installing Debian's chromium`);
  execSync('apt-get update && apt-get install -y chromium', { stdio: 'inherit' });
}
