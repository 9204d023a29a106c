import { parseArgs } from 'node:util';
import { defaultConnectionBounds } from './http/connection-bounds.js';
import { defaultAnonymousRateLimits, rateLimitText } from './http/rate-limit.js';

export const sandboxOptions = {
  port: { type: 'string', default: process.env.PORT ?? '4000' },
  host: { type: 'string', default: '127.0.0.1' },
  'data-dir': { type: 'string', default: '.sandbox-data' },
  memory: { type: 'boolean', default: false },
  'database-url': { type: 'string', default: process.env.DATABASE_URL },
  'rate-limit': { type: 'string', default: 'off' },
  'key-rate-limit': {
    type: 'string',
    default: rateLimitText(defaultAnonymousRateLimits.perKey),
  },
  'address-rate-limit': {
    type: 'string',
    default: rateLimitText(defaultAnonymousRateLimits.perAddress),
  },
  'max-address-connections': {
    type: 'string',
    default: String(defaultConnectionBounds.perAddress),
  },
  'max-connections': { type: 'string', default: String(defaultConnectionBounds.total) },
  'settle-after': { type: 'string', default: '10' },
  'docs-url': { type: 'string' },
  'test-control': { type: 'boolean', default: false },
  'require-session-auth': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type OptionName = keyof typeof sandboxOptions;

/** What each option takes and does: one line of the usage each, none left out. */
const optionHelp: Record<OptionName, [argument: string, text: string]> = {
  port: ['PORT', 'port to listen on, 0 for any free one (default 4000, or $PORT)'],
  host: ['HOST', 'address to listen on (default 127.0.0.1)'],
  'data-dir': ['DIR', 'folder of the PGlite store (default .sandbox-data)'],
  memory: ['', 'keep nothing: an in-memory store'],
  'database-url': ['URL', 'a PostgreSQL store instead of PGlite (or $DATABASE_URL)'],
  'rate-limit': ['CALLS/SECONDS', 'calls per token, as the service limits them (default off)'],
  'key-rate-limit': [
    'CALLS/SECONDS',
    `anonymous partner calls per public key (default ${rateLimitText(defaultAnonymousRateLimits.perKey)})`,
  ],
  'address-rate-limit': [
    'CALLS/SECONDS',
    `anonymous partner calls per client address (default ${rateLimitText(defaultAnonymousRateLimits.perAddress)})`,
  ],
  'max-address-connections': [
    'N',
    `connections one client address may hold open (default ${defaultConnectionBounds.perAddress})`,
  ],
  'max-connections': [
    'N',
    `connections held open in all, the longest idle closed to make room (default ${defaultConnectionBounds.total}, lowered to fit ulimit -n)`,
  ],
  'settle-after': ['SECONDS|never', 'PENDING transactions are FILLED after this (default 10)'],
  'docs-url': ['URL', 'docs site the index page links to'],
  'test-control': ['', 'serve the test control routes under /test/, listed once started'],
  'require-session-auth': ['', 'session calls need the session Bearer JWT'],
  help: ['', 'print this and exit'],
};

export function usage(): string {
  const flags = Object.entries(optionHelp).map(([name, [argument]]) => {
    const short = (sandboxOptions[name as OptionName] as { short?: string }).short;
    return `${short ? `-${short}, ` : ''}--${name}${argument ? ` ${argument}` : ''}`;
  });
  const width = Math.max(...flags.map((flag) => flag.length));
  const lines = Object.values(optionHelp).map(
    ([, text], index) => `  ${(flags[index] ?? '').padEnd(width)}  ${text}`,
  );
  return ['Usage: exchange-sandbox [options]', '', 'Options:', ...lines, ''].join('\n');
}

/** A command line the sandbox does not take; its message names what is wrong. */
export class UsageError extends Error {}

/**
 * The options of the command line, or a UsageError naming the first argument that is not
 * one of them (an unknown option, a positional argument, a missing or unwanted value).
 */
export function parseCommandLine(args: string[]) {
  const { tokens } = parseArgs({
    args,
    options: sandboxOptions,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind === 'positional') {
      throw new UsageError(`unexpected argument "${token.value}"`);
    }
    if (token.kind !== 'option') continue;
    const option = Object.hasOwn(sandboxOptions, token.name)
      ? sandboxOptions[token.name as OptionName]
      : undefined;
    if (!option) throw new UsageError(`unknown option ${token.rawName}`);
    if (option.type === 'string' && token.value === undefined) {
      throw new UsageError(`${token.rawName} needs a value`);
    }
    // A value that starts with a dash is taken for a forgotten one, as parseArgs takes it.
    if (option.type === 'string' && !token.inlineValue && token.value?.startsWith('-')) {
      throw new UsageError(
        `${token.rawName} needs a value ("${token.value}" is taken for an option; write ${token.rawName}=${token.value} to give it)`,
      );
    }
    if (option.type === 'boolean' && token.value !== undefined) {
      throw new UsageError(`${token.rawName} takes no value`);
    }
  }
  try {
    return parseArgs({ args, options: sandboxOptions, strict: true }).values;
  } catch (error) {
    // Whatever else parseArgs refuses, in its own first line.
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
}
