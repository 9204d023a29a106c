/**
 * `pnpm --filter @exchange-kit/docs serve -- --port 4173 [--sandbox-url URL] [--public-api-key KEY]`
 * serves the built site (run `build` first) on 127.0.0.1 and prints its URL.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { distDir, startDocsServer } from '../src/serve.js';

const args = process.argv.slice(2);
if (args[0] === '--') args.shift();
const { values } = parseArgs({
  args,
  options: {
    port: { type: 'string', default: process.env.PORT ?? '4173' },
    host: { type: 'string', default: '127.0.0.1' },
    'sandbox-url': { type: 'string', default: process.env.SANDBOX_URL },
    'public-api-key': {
      type: 'string',
      default: process.env.SANDBOX_PUBLIC_API_KEY ?? 'pk_sandbox_demo',
    },
  },
  strict: true,
});
if (!existsSync(`${distDir}index.html`)) {
  console.error('apps/docs/dist is empty: run `pnpm --filter @exchange-kit/docs build` first');
  process.exit(2);
}
const server = await startDocsServer({
  port: Number(values.port),
  host: values.host,
  ...(values['sandbox-url'] ? { sandboxUrl: values['sandbox-url'] } : {}),
  publicApiKey: values['public-api-key'],
});
console.log(`docs:          ${server.url}`);
if (values['sandbox-url'])
  console.log(`live buy flow: ${server.url}live.html (sandbox ${values['sandbox-url']})`);
// A Ctrl-C under pnpm arrives twice (from the terminal, and forwarded by pnpm): the signals
// after the first are let be, so the process ends by its own exit code, not killed by one.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void server.close().then(() => process.exit(0));
  });
}
