import { parseArgs } from 'node:util';
import { startSandbox } from './server.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '4000' },
    host: { type: 'string', default: '127.0.0.1' },
  },
  strict: true,
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port: "${values.port}" is not a port number (0-65535)`);
  process.exit(2);
}

const sandbox = await startSandbox({ port, host: values.host });
console.log(`exchange API:  ${sandbox.exchangeUrl}`);
console.log(`partner API:   ${sandbox.partnerUrl}/api/v1`);
console.log(
  `specs:         ${sandbox.exchangeUrl}/openapi/exchange.json, ${sandbox.exchangeUrl}/openapi/partner.json`,
);
console.log('ready');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void sandbox.close().then(() => process.exit(0)));
}
