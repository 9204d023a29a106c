import { mkdir, writeFile } from 'node:fs/promises';
import { renderStateTables } from './state-tables.js';

const out = new URL('../dist/', import.meta.url);
await mkdir(out, { recursive: true });
await writeFile(new URL('state-tables.md', out), renderStateTables());
console.log('wrote apps/docs/dist/state-tables.md');
