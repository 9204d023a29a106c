import { main } from './main.js';

/** What one `exchange-conformance` command ended with. */
export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `exchange-conformance` run in this process with `args` and `env` added to the environment:
 * its exit status and what it wrote. A crash is status 1 with its stack on stderr, as Node
 * ends a process on an uncaught error.
 */
export async function exchangeConformance(
  args: string[],
  env: Record<string, string> = {},
): Promise<CliOutcome> {
  let stdout = '';
  let stderr = '';
  const io = {
    out: (text: string) => {
      stdout += text;
    },
    err: (text: string) => {
      stderr += text;
    },
    env: { ...process.env, ...env },
  };
  try {
    return { code: await main(args, io), stdout, stderr };
  } catch (error) {
    return { code: 1, stdout, stderr: `${stderr}${(error as Error).stack ?? String(error)}\n` };
  }
}
