/** `pnpm example`: a sandbox and the example page, for trying the buy flow by hand. */
import { startSandboxProcess } from '@exchange-kit/sandbox/testing';
import { startExampleServer } from './server.js';

const { stop, exchangeUrl: _, partnerUrl, ...credentials } = await startSandboxProcess();
const example = await startExampleServer({
  partnersUrl: partnerUrl,
  ...credentials,
  port: Number(process.env.PORT ?? 5173),
});
console.info(`Buy flow example: ${example.url} (sandbox at ${partnerUrl})`);

process.once('SIGINT', () => {
  void example.close().then(stop);
});
