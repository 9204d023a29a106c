/** `pnpm example`: a sandbox and the example page, for trying the buy flow by hand. */
import { startSandbox } from '@exchange-kit/sandbox/src/server.js';
import { startExampleServer } from './server.js';

const sandbox = await startSandbox({ port: 0, memory: true });
const example = await startExampleServer({
  partnersUrl: sandbox.partnerUrl,
  ...sandbox.credentials,
  port: Number(process.env.PORT ?? 5173),
});
console.info(`Buy flow example: ${example.url} (sandbox at ${sandbox.partnerUrl})`);

process.once('SIGINT', () => {
  void example.close().then(() => sandbox.close());
});
