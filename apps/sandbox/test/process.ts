import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface SandboxProcess {
  exchangeUrl: string;
  partnerUrl: string;
  tokenId: string;
  tokenSecret: string;
  publicApiKey: string;
  /** The variables the start banner names, as `SANDBOX_TOKEN_SECRET`. */
  variables: string[];
  stop(): Promise<void>;
}

const sandboxDir = fileURLToPath(new URL('../', import.meta.url));

/**
 * For the tests of other packages, which must not depend on the sandbox's code.
 * Starts the real sandbox as its own process, in memory, on a free loopback port, exactly as
 * a user starts it, and reads its URLs and demo credentials from what it prints.
 */
export async function startSandboxProcess(
  timeoutMs = 30_000,
  /** More options of the command line, as `['--rate-limit', '2/60']`. */
  args: string[] = [],
  /** Variables of the sandbox's environment, as a user sets them before starting it. */
  env: Record<string, string> = {},
): Promise<SandboxProcess> {
  const child: ChildProcess = spawn(
    `${sandboxDir}node_modules/.bin/tsx`,
    ['--conditions=@exchange-kit/source', 'src/main.ts', '--memory', '--port', '0', ...args],
    {
      cwd: sandboxDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SANDBOX_TOKEN_SECRET: '', ...env },
    },
  );
  const printed = new Map<string, string>();
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`sandbox not ready in ${timeoutMs} ms: ${stderr}`)),
      timeoutMs,
    );
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const url = /^(exchange|partner) API:\s+(\S+)$/.exec(line);
      if (url) printed.set(url[1] as string, url[2] as string);
      const credential = /^\s+(SANDBOX_\w+)=(\S+)/.exec(line);
      if (credential) printed.set(credential[1] as string, credential[2] as string);
      if (line === 'ready') {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const value = (name: string) => {
    const found = printed.get(name);
    if (!found) throw new Error(`the sandbox did not print ${name}`);
    return found;
  };
  return {
    exchangeUrl: value('exchange'),
    partnerUrl: value('partner').replace(/\/api\/v1$/, ''),
    tokenId: value('SANDBOX_TOKEN_ID'),
    // A secret from the environment is not printed: the caller gave it.
    tokenSecret: env.SANDBOX_TOKEN_SECRET || value('SANDBOX_TOKEN_SECRET'),
    publicApiKey: value('SANDBOX_PUBLIC_API_KEY'),
    variables: [...printed.keys()].filter((name) => name.startsWith('SANDBOX_')),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
