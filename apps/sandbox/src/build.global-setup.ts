import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Builds the bundle users start as `exchange-sandbox` (`dist/main.js`, as `pnpm start` builds
 * it) once per run: the tests that start it run side by side and must not rebuild it under
 * each other.
 */
export default function buildSandbox(): void {
  const sandboxDir = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: sandboxDir });
}
