import { constants } from 'node:fs';
import { access, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sessionAuthJwt } from '@exchange-kit/core/auth';
import type { ConformanceAdapter } from '../engine/adapter.js';
import { catalog, type Profile, profileNames, profiles } from '../engine/catalog.js';
import { readExpectedFailures } from '../engine/expected-failures.js';
import { credentialsNeeded } from '../engine/preflight.js';
import { type ConformanceReport, RunAbortedError, runConformance } from '../engine/run.js';
import { consoleLine, consoleSummary } from '../reports/console.js';
import { defaultDocsUrl } from '../reports/docs-link.js';
import { toHtml } from '../reports/html.js';
import { toJson } from '../reports/json.js';
import { toJunit } from '../reports/junit.js';
import {
  delegatedOperation,
  type SignRequest,
  sessionSecretVariable,
  signableMethods,
  signFor,
  tokenSecretVariable,
} from '../signing/sign.js';

const runOptions = `  --exchange-url URL        base URL of the exchange interface (required)
  --partner-url URL         base URL of the partner interface (default: the exchange URL)
  --events-url URL          websocket URL of the events (default: the exchange URL's host at
                            /app/LiquidTapClient, as the AsyncAPI document gives it)
  --token-id ID             API token id (required unless the profiles call nothing signed)
  --token-secret SECRET     API token secret (as --token-id; or env ${tokenSecretVariable})
  --public-api-key KEY      partner public API key (required for the partner profiles)
  --profile NAME            run only this profile; repeat for more (${profileNames.join(', ')})
  --only ID                 run only this requirement; repeat for more
  --operation ID            run only the requirements about this operationId; repeat for more
  --tag TAG                 run only the requirements about operations of this spec tag; repeat
  --concurrency N           run up to N independent scenarios at once (default 1)
  --seed SEED               replay a run: its run id and every generated value come from SEED
  --max-examples N          generated request bodies per operation, and command sequences of
                            the model profile, to try (default 10); a failure is shrunk
  --adapter MODULE          module whose default export replaces fixture steps
  --expected-failures FILE  JSON array of {id, reason, expires}: known failures become XFAIL
  --report FORMAT=FILE      junit, json or html, into a folder that exists; repeat for more
  --docs-url URL            docs site the HTML report links each requirement to (default
                            ${defaultDocsUrl}, where the docs package serves it)
  -h, --help                print this and exit
`;

const signOptions = `  --token-id ID             API token id (required, unless --session-id)
  --session-id ID           a user session's Bearer JWT instead, signed with the session secret
                            from env ${sessionSecretVariable}
  --path PATH               the request path the JWT is for, from its /, query string
                            included (required)
  --method METHOD           with --path, signs the payload the spec names for that operation
  --delegate                partner delegated payload (path /realtime, delegate_path PATH)
  --oauth-public-id ID      with --oauth-private-id: a call made for a user through OAuth
  --oauth-private-id ID
  --nonce N                 this nonce instead of a fresh one; --no-nonce leaves it out
  --alg HS256|HS512         (default HS256)
  -h, --help                print this and exit
`;

const exitStatus = `Exit status: 0 when no MUST requirement failed or errored, 1 when one did, 2 when the run
could not proceed (a credential refused, a wrong base URL, the server unreachable, bad arguments).
`;

const usages = {
  list: `Usage: exchange-conformance list

Prints every requirement id with its level, profile, the table row it comes from and its
operations.
`,
  run: `Usage: exchange-conformance run --exchange-url URL [options]

Checks a server; one verdict per requirement.

Options:
${runOptions}
${exitStatus}`,
  sign: `Usage: exchange-conformance sign --token-id ID --path PATH [options]
       exchange-conformance sign --session-id ID --path PATH

Prints a fresh X-Service-Auth JWT, for the curl lines a failure prints; the secret comes from
the environment variable ${tokenSecretVariable}. With --session-id, a fresh session Bearer JWT
signed with the secret in ${sessionSecretVariable}.

Options:
${signOptions}`,
};

type Command = keyof typeof usages;

const usage = `Usage: exchange-conformance <command> [options]

Commands:
  list    every requirement id with its level, profile and the table row it comes from
  run     check a server; one verdict per requirement
  sign    print a fresh X-Service-Auth JWT, for the curl lines a failure prints

\`exchange-conformance <command> --help\` prints the options of one command.

Options of run:
${runOptions}
Options of sign (the secret comes from env ${tokenSecretVariable}):
${signOptions}
${exitStatus}`;

class UsageError extends Error {}

const help = { help: { type: 'boolean', short: 'h' } } as const;

function list(argv: string[], io: CliIo): number {
  const { values } = parseArgs({ args: argv, options: help, strict: true });
  if (values.help) {
    io.out(usages.list);
    return 0;
  }
  const width = Math.max(...catalog.map((r) => r.id.length));
  const profileWidth = Math.max(...profileNames.map((p) => p.length));
  for (const requirement of catalog) {
    io.out(
      `${requirement.id.padEnd(width)}  ${requirement.level.padEnd(6)}  ${(requirement.profiles[0] ?? '').padEnd(profileWidth)}  ${requirement.origin}  [${requirement.operations.join(', ')}]\n`,
    );
  }
  return 0;
}

const writers: Record<string, (report: ConformanceReport, docsUrl?: string) => string> = {
  junit: toJunit,
  json: toJson,
  html: (report, docsUrl) => toHtml(report, { docsUrl }),
};

function reportTargets(values: string[]): [string, string][] {
  return values.map((value) => {
    const at = value.indexOf('=');
    const format = value.slice(0, at);
    const file = value.slice(at + 1);
    if (at < 1 || !file || !writers[format]) {
      throw new UsageError(
        `--report ${value}: give FORMAT=FILE with FORMAT one of ${Object.keys(writers).join(', ')}`,
      );
    }
    return [format, file];
  });
}

/**
 * Refuses, before the run, a report that could not be written after it: a run of minutes must
 * not end in a stack trace for want of a folder.
 */
async function checkReportFile(value: string, file: string): Promise<void> {
  const path = resolve(file);
  const folder = dirname(path);
  const refuse = (why: string) => new RunAbortedError(`--report ${value}: ${why}`);
  const folderStats = await stat(folder).catch(() => undefined);
  if (!folderStats) throw refuse(`the folder ${folder} does not exist; create it first`);
  if (!folderStats.isDirectory()) throw refuse(`${folder} is not a folder`);
  const fileStats = await stat(path).catch(() => undefined);
  if (fileStats?.isDirectory()) throw refuse(`${path} is a folder; name a file in it`);
  try {
    await access(fileStats ? path : folder, constants.W_OK);
  } catch {
    throw refuse(fileStats ? `cannot write ${path}` : `cannot write in the folder ${folder}`);
  }
}

const typeScriptModule = /\.[cm]?tsx?$/;

async function loadAdapter(module: string): Promise<ConformanceAdapter> {
  const specifier =
    module.startsWith('.') || isAbsolute(module) ? pathToFileURL(resolve(module)).href : module;
  let loaded: { default?: ConformanceAdapter; adapter?: ConformanceAdapter };
  try {
    // Node itself cannot import TypeScript on every version the package supports (20 not at
    // all, 22 only behind a flag): tsx compiles the adapter, and only it, as the guide gives it.
    loaded = (
      typeScriptModule.test(module)
        ? await (await import('tsx/esm/api')).tsImport(specifier, import.meta.url)
        : await import(specifier)
    ) as typeof loaded;
  } catch (error) {
    throw new UsageError(`--adapter ${module}: cannot import it (${(error as Error).message})`);
  }
  const adapter = loaded.default ?? loaded.adapter;
  if (typeof adapter !== 'object' || adapter === null) {
    throw new UsageError(
      `--adapter ${module}: the module must export an adapter object as default (or as "adapter")`,
    );
  }
  return adapter;
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'exchange-url': { type: 'string' },
      'partner-url': { type: 'string' },
      'events-url': { type: 'string' },
      'token-id': { type: 'string' },
      'token-secret': { type: 'string' },
      'public-api-key': { type: 'string' },
      profile: { type: 'string', multiple: true },
      only: { type: 'string', multiple: true },
      operation: { type: 'string', multiple: true },
      tag: { type: 'string', multiple: true },
      concurrency: { type: 'string' },
      seed: { type: 'string' },
      'max-examples': { type: 'string' },
      adapter: { type: 'string' },
      'expected-failures': { type: 'string' },
      report: { type: 'string', multiple: true },
      'docs-url': { type: 'string' },
      ...help,
    },
    strict: true,
  });
  if (values.help) {
    io.out(usages.run);
    return 0;
  }
  if (values['docs-url'] !== undefined && !URL.canParse(values['docs-url']))
    throw new UsageError(`--docs-url ${values['docs-url']}: give an absolute URL`);
  const eventsUrl = values['events-url'];
  if (
    eventsUrl !== undefined &&
    !(URL.canParse(eventsUrl) && /^wss?:$/.test(new URL(eventsUrl).protocol))
  )
    throw new UsageError(`--events-url ${eventsUrl}: give a ws:// or wss:// URL`);
  const selected = (values.profile ?? []) as Profile[];
  for (const profile of selected) {
    if (!(profile in profiles))
      throw new UsageError(`--profile ${profile}: the profiles are ${profileNames.join(', ')}`);
  }
  // Only the credentials the chosen profiles sign with are asked for (and then checked).
  const needed = credentialsNeeded(selected.length > 0 ? selected : profileNames);
  const tokenSecret = values['token-secret'] ?? io.env[tokenSecretVariable];
  const missing = [
    !values['exchange-url'] && '--exchange-url',
    needed.token && !values['token-id'] && '--token-id',
    needed.token && !tokenSecret && '--token-secret',
  ].filter(Boolean);
  if (missing.length > 0) throw new UsageError(`run needs ${missing.join(', ')}`);
  if (needed.publicApiKey && !values['public-api-key']) {
    throw new UsageError(
      'the partner profiles need --public-api-key (or leave them out with --profile)',
    );
  }
  if (values.seed !== undefined && values.seed.trim() === '')
    throw new UsageError('--seed is empty: give a seed to replay, or leave it out for a fresh one');
  const concurrency = values.concurrency === undefined ? 1 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new UsageError(`--concurrency ${values.concurrency}: give a whole number, 1 or more`);
  const maxExamples =
    values['max-examples'] === undefined ? undefined : Number(values['max-examples']);
  if (maxExamples !== undefined && (!Number.isInteger(maxExamples) || maxExamples < 1))
    throw new UsageError(
      `--max-examples ${values['max-examples']}: give a whole number, 1 or more`,
    );
  const reports = reportTargets(values.report ?? []);
  for (const [index, [, file]] of reports.entries())
    await checkReportFile(values.report?.[index] as string, file);
  const adapter = values.adapter ? await loadAdapter(values.adapter) : undefined;
  let expectedFailures: Awaited<ReturnType<typeof readExpectedFailures>> | undefined;
  if (values['expected-failures']) {
    try {
      expectedFailures = await readExpectedFailures(values['expected-failures']);
    } catch (error) {
      throw new UsageError(`--expected-failures: ${(error as Error).message}`);
    }
  }
  const exchangeUrl = values['exchange-url'] as string;
  const report = await runConformance(
    {
      exchangeUrl,
      partnerUrl: values['partner-url'] ?? exchangeUrl,
      tokenId: values['token-id'] ?? '',
      tokenSecret: tokenSecret ?? '',
      publicApiKey: values['public-api-key'] ?? '',
      ...(eventsUrl === undefined ? {} : { eventsUrl }),
    },
    {
      profiles: selected,
      only: values.only,
      operations: values.operation,
      tags: values.tag,
      concurrency,
      seed: values.seed,
      maxExamples,
      adapter,
      expectedFailures,
      onResult: (result) =>
        io.out(`${consoleLine(result)}
`),
    },
  );
  io.out(`${consoleSummary(report)}\n`);
  for (const [format, file] of reports) {
    const write = writers[format] as (r: ConformanceReport, docsUrl?: string) => string;
    try {
      await writeFile(file, write(report, values['docs-url']));
    } catch (error) {
      throw new RunAbortedError(
        `cannot write the ${format} report ${file}: ${(error as Error).message}`,
      );
    }
    io.out(`${format} report: ${file}\n`);
  }
  return report.mustFailures.length > 0 ? 1 : 0;
}

async function sign(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'token-id': { type: 'string' },
      'session-id': { type: 'string' },
      path: { type: 'string' },
      method: { type: 'string' },
      delegate: { type: 'boolean' },
      'oauth-public-id': { type: 'string' },
      'oauth-private-id': { type: 'string' },
      nonce: { type: 'string' },
      'no-nonce': { type: 'boolean' },
      alg: { type: 'string' },
      ...help,
    },
    strict: true,
  });
  if (values.help) {
    io.out(usages.sign);
    return 0;
  }
  if (values['session-id'] !== undefined) return signSession(values, io);
  const tokenSecret = io.env[tokenSecretVariable];
  const missing = [
    !values['token-id'] && '--token-id',
    !values.path && '--path',
    !tokenSecret && `the environment variable ${tokenSecretVariable}`,
  ].filter(Boolean);
  if (missing.length > 0) throw new UsageError(`sign needs ${missing.join(', ')}`);
  // The JWT signs the path the server sees: one not from its / would be refused for a mismatch.
  if (!values.path?.startsWith('/'))
    throw new UsageError(
      `--path ${values.path}: give the request path from its /, for example /orders?limit=1`,
    );
  if (values.method !== undefined && !signableMethods.includes(values.method.toUpperCase()))
    throw new UsageError(
      `--method ${values.method}: the operations of the specs use ${signableMethods.join(', ')}`,
    );
  if (values.nonce !== undefined && values['no-nonce'])
    throw new UsageError('give --nonce N or --no-nonce, not both');
  if (Boolean(values['oauth-public-id']) !== Boolean(values['oauth-private-id']))
    throw new UsageError('give --oauth-public-id and --oauth-private-id together');
  if (values.alg !== undefined && values.alg !== 'HS256' && values.alg !== 'HS512')
    throw new UsageError(`--alg ${values.alg}: HS256 or HS512`);
  const nonce = values.nonce === undefined ? undefined : Number(values.nonce);
  if (nonce !== undefined && !Number.isSafeInteger(nonce))
    throw new UsageError(`--nonce ${values.nonce}: give a whole number`);
  const path = values.path as string;
  const request: SignRequest = { tokenId: values['token-id'] as string, path };
  if (values.delegate || (values.method && delegatedOperation(values.method, path)))
    request.delegate = true;
  if (values['oauth-public-id']) {
    request.oauthPublicId = values['oauth-public-id'];
    request.oauthPrivateId = values['oauth-private-id'];
  }
  if (values['no-nonce']) request.nonce = null;
  else if (nonce !== undefined) request.nonce = nonce;
  if (values.alg) request.alg = values.alg as 'HS256' | 'HS512';
  io.out(`${signFor(request, tokenSecret as string)}\n`);
  return 0;
}

/** A session Bearer JWT: the session and the path, nothing of the token's options. */
async function signSession(
  values: Record<string, string | boolean | undefined>,
  io: CliIo,
): Promise<number> {
  const others = [
    'token-id',
    'method',
    'delegate',
    'oauth-public-id',
    'oauth-private-id',
    'nonce',
    'no-nonce',
    'alg',
  ].filter((name) => values[name] !== undefined);
  if (others.length > 0)
    throw new UsageError(`--session-id signs a session JWT: leave out --${others.join(', --')}`);
  const sessionSecret = io.env[sessionSecretVariable];
  const missing = [
    !values.path && '--path',
    !sessionSecret && `the environment variable ${sessionSecretVariable}`,
  ].filter(Boolean);
  if (missing.length > 0) throw new UsageError(`sign --session-id needs ${missing.join(', ')}`);
  const path = values.path as string;
  if (!path.startsWith('/'))
    throw new UsageError(
      `--path ${path}: give the request path from its /, for example /api/v1/transaction/status/ID`,
    );
  const session = {
    sessionId: values['session-id'] as string,
    sessionSecret: sessionSecret as string,
  };
  io.out(`${await sessionAuthJwt(session, path)}\n`);
  return 0;
}

const commands: Record<Command, (argv: string[], io: CliIo) => number | Promise<number>> = {
  list,
  run,
  sign,
};

const isCommand = (name: string): name is Command => Object.hasOwn(commands, name);

/** Where the command line writes, and the environment it reads its secrets from. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
}

const processIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
};

/** `exchange-conformance` with `argv` (the arguments after it): its exit status. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h') {
    io.out(usage);
    return command === undefined ? 2 : 0;
  }
  try {
    if (!isCommand(command)) throw new UsageError(`unknown command "${command}"`);
    return await commands[command](rest, io);
  } catch (error) {
    // A refused credential or an unreachable server is not a usage mistake: one line says it.
    if (error instanceof RunAbortedError) {
      io.err(`exchange-conformance: ${error.message}\n`);
      return 2;
    }
    if (
      error instanceof UsageError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      const shown = isCommand(command) ? usages[command] : usage;
      io.err(`exchange-conformance: ${(error as Error).message}\n\n${shown}`);
      return 2;
    }
    throw error;
  }
}
