// The public reads: on the sandbox, beside idle connections, and on a stateless mock.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openIdleConnections } from '../idle-connections.js';
import { type Load, load } from './load.js';

const specPath = fileURLToPath(import.meta.resolve('@exchange-kit/contract/exchange/openapi.json'));

// More than one address may hold (2,000 by default), far fewer than the fd limit allows.
const idleCount = 5000;

/** The reads again, while another loopback address holds idle connections to the server. */
export async function readsBesideIdle(sandbox: { exchangeUrl: string }): Promise<Load> {
  const idle = await openIdleConnections(sandbox.exchangeUrl, '127.0.0.2', idleCount);
  try {
    const read = await reads(sandbox, 'reads');
    const held = idle.held();
    return {
      ...read,
      name: `reads, beside ${idleCount.toLocaleString('en')} idle connections opened by another address (${held.toLocaleString('en')} held)`,
    };
  } finally {
    idle.close();
  }
}

export const reads = (sandbox: { exchangeUrl: string }, name: string) =>
  load(name, {
    url: sandbox.exchangeUrl,
    requests: [
      { method: 'GET', path: '/products' },
      { method: 'GET', path: '/products/1/price_levels' },
      { method: 'GET', path: '/ir_ladders/BTC' },
    ],
  });

export async function prismReads(): Promise<Load> {
  const port = 4900 + Math.floor(Math.random() * 90);
  const prism = spawn(
    fileURLToPath(new URL('../node_modules/.bin/prism', import.meta.url)),
    ['mock', specPath, '--host', '127.0.0.1', '--port', String(port), '--errors', 'false'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('prism did not start in 60 s')), 60_000);
      const watch = (line: string) => {
        if (/Prism is listening/.test(line)) {
          clearTimeout(timer);
          resolve();
        }
      };
      createInterface({ input: prism.stdout }).on('line', watch);
      createInterface({ input: prism.stderr }).on('line', watch);
      prism.once('exit', (code) => reject(new Error(`prism exited with ${code}`)));
    });
    return await reads(
      { exchangeUrl: `http://127.0.0.1:${port}` },
      'reads from Prism mock (stateless, same spec)',
    );
  } finally {
    prism.kill('SIGTERM');
  }
}
