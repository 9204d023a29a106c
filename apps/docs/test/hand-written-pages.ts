import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const docsDir = fileURLToPath(new URL('../', import.meta.url));

/** What the build generates into site/, as .gitignore lists it: not written by hand. */
const generated = readFileSync(`${docsDir}.gitignore`, 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('site/'))
  .map((line) => line.replace(/\/$/, ''));

/** Every file under `dir` whose name ends with one of `endings`, generated ones left out. */
export function handWritten(dir: string, endings = ['.md']): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    const relative = path.slice(docsDir.length);
    if (generated.some((g) => relative === g || relative.startsWith(`${g}/`))) return [];
    if (entry.isDirectory()) return entry.name.startsWith('.') ? [] : handWritten(path, endings);
    return endings.some((ending) => entry.name.endsWith(ending)) ? [path] : [];
  });
}
