import './store/pglite-prestart.js';
import { eventsPath } from '@exchange-kit/contract/events';
import { parseCommandLine, UsageError, usage } from './command-line.js';
import { credentialsFromEnv } from './config.js';
import { describeRateLimit, parseRateLimit } from './http/rate-limit.js';
import type { ReadyMessage } from './ready.js';
import { startSandbox } from './server.js';
import { controlPaths } from './test-control/test-control.js';

// `pnpm sandbox -- --port 4000` hands the script a leading `--`; it separates nothing here.
const args = process.argv.slice(2);
if (args[0] === '--') args.shift();

// A command line it does not take is one line naming what is wrong, as any start that fails.
const values = (() => {
  try {
    return parseCommandLine(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`exchange-sandbox: ${error.message}; --help lists the options`);
    process.exit(2);
  }
})();
if (values.help) {
  process.stdout.write(usage());
  process.exit(0);
}

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port: "${values.port}" is not a port number (0-65535)`);
  process.exit(2);
}

/** A CALLS/SECONDS option, or the line saying why not and exit 2. */
function rateLimitOption(flag: 'rate-limit' | 'key-rate-limit' | 'address-rate-limit') {
  try {
    return parseRateLimit(`--${flag}`, values[flag] ?? 'off');
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
}
// Per token, as the service's 600/300; off by default, so test runs and conformance runs
// are never refused for their pace.
const rateLimit = rateLimitOption('rate-limit');
// Anonymous partner calls write to the store with no token to answer for them: limited by
// default, per public key and per client address.
const anonymousRateLimits = {
  perKey: rateLimitOption('key-rate-limit'),
  perAddress: rateLimitOption('address-rate-limit'),
};

/** A number of connections, or the line saying why not and exit 2. */
function connectionsOption(flag: 'max-connections' | 'max-address-connections'): number {
  const text = values[flag];
  if (!/^[1-9][0-9]{0,6}$/.test(text)) {
    console.error(`--${flag}: "${text}" is not a number of connections (1 to 9999999)`);
    process.exit(2);
  }
  return Number(text);
}
const maxConnectionsPerAddress = connectionsOption('max-address-connections');
const maxConnections = connectionsOption('max-connections');

// Seconds until a PENDING transaction is FILLED, as if its settlements had run; `never`
// keeps transactions PENDING.
const settleAfterText = values['settle-after'];
if (settleAfterText !== 'never' && !/^(0|[1-9][0-9]{0,6})$/.test(settleAfterText)) {
  console.error(`--settle-after: "${settleAfterText}" is neither never nor a number of seconds`);
  process.exit(2);
}
const settleAfterMs = settleAfterText === 'never' ? undefined : Number(settleAfterText) * 1000;

const { credentials, defaulted } = credentialsFromEnv();
const databaseUrl = values['database-url'] || undefined;
// A start that fails for a reason of the user's (a folder or port in use, a database out of
// reach) says so in one line, not in a stack trace.
const sandbox = await startSandbox({
  port,
  host: values.host,
  dataDir: values['data-dir'],
  memory: values.memory,
  databaseUrl,
  credentials,
  rateLimit,
  anonymousRateLimits,
  settleAfterMs,
  docsUrl: values['docs-url'],
  testControl: values['test-control'],
  requireSessionAuth: values['require-session-auth'],
  maxConnectionsPerAddress,
  maxConnections,
}).catch((error: Error) => {
  console.error(`exchange-sandbox: ${error.message}`);
  process.exit(1);
});

// A secret is printed only while it is the published default; one from the environment is
// the user's own and stays out of logs. The database URL may carry a password: not printed.
const shown = (name: string, value: string, isDefault: boolean, secret = false) =>
  `  ${name}=${secret && !isDefault ? '(set in the environment)' : value}${isDefault ? '  (default)' : ''}`;
const store = databaseUrl
  ? 'PostgreSQL (--database-url / DATABASE_URL)'
  : values.memory
    ? 'in memory (--memory): nothing is kept'
    : `PGlite in ${values['data-dir']}`;

console.log(`exchange API:  ${sandbox.exchangeUrl}`);
console.log(`partner API:   ${sandbox.partnerUrl}  (its paths are under /api/v1)`);
console.log(
  `specs:         ${sandbox.exchangeUrl}/openapi/exchange.json, ${sandbox.exchangeUrl}/openapi/partner.json`,
);
console.log(
  `events:        ${sandbox.exchangeUrl.replace(/^http/, 'ws')}${eventsPath}  (Pusher protocol; pusher-js app key LiquidTapClient)`,
);
console.log(
  `console:       ${sandbox.exchangeUrl}/console  (book, fills, a demo user's views, transactions, live)`,
);
console.log(`store:         ${store}`);
console.log(
  `settlements:   ${settleAfterMs === undefined ? 'never complete (--settle-after never)' : `PENDING transactions are FILLED after ${settleAfterText} s (--settle-after)`}`,
);
console.log(
  `rate limit:    ${rateLimit ? `${describeRateLimit(rateLimit)} per token` : 'off (--rate-limit 600/300 limits calls as the service does)'}`,
);
console.log(
  `anonymous:     partner calls without a token, ${describeRateLimit(anonymousRateLimits.perKey)} per public key (--key-rate-limit), ${describeRateLimit(anonymousRateLimits.perAddress)} per client address (--address-rate-limit)`,
);
const bounds = sandbox.connectionBounds;
const lowered = bounds.loweredFrom
  ? `, lowered from ${bounds.loweredFrom} to fit under ulimit -n ${bounds.openFileLimit} beside the store's files`
  : '';
console.log(
  `connections:   at most ${bounds.perAddress} per client address (--max-address-connections), ${bounds.total} in all (--max-connections${lowered}); the longest idle are closed to make room`,
);
console.log(
  `sessions:      ${values['require-session-auth'] ? 'transaction and settlement calls need the session Bearer JWT (--require-session-auth)' : 'the session Bearer JWT is optional (--require-session-auth requires it)'}`,
);
if (values['test-control']) {
  console.log(`test control:  on (--test-control):\n  ${controlPaths.join('\n  ')}`);
}
console.log(
  'demo credentials (set these variables, here and where the samples run, to choose your own):',
);
console.log(shown('SANDBOX_TOKEN_ID', credentials.tokenId, defaulted.tokenId));
console.log(shown('SANDBOX_TOKEN_SECRET', credentials.tokenSecret, defaulted.tokenSecret, true));
console.log(shown('SANDBOX_PUBLIC_API_KEY', credentials.publicApiKey, defaulted.publicApiKey));
console.log('a second demo user, to approve OAuth requests as someone else:');
console.log(shown('SANDBOX_SECOND_TOKEN_ID', credentials.secondTokenId, defaulted.secondTokenId));
console.log(
  shown(
    'SANDBOX_SECOND_TOKEN_SECRET',
    credentials.secondTokenSecret,
    defaulted.secondTokenSecret,
    true,
  ),
);
console.log('ready');
// Started by `@exchange-kit/sandbox/testing` (with an IPC channel): the same, for a program.
if (process.send) {
  const ready: ReadyMessage = {
    type: 'exchange-sandbox:ready',
    exchangeUrl: sandbox.exchangeUrl,
    partnerUrl: sandbox.partnerUrl,
    credentials,
  };
  process.send(ready);
}

// A Ctrl-C under pnpm arrives twice (from the terminal, and forwarded by pnpm): the signals
// after the first are let be, so the process ends by its own exit code, not killed by one.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void sandbox.close().then(() => process.exit(0));
  });
}
