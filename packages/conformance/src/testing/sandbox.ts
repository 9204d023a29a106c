import type { Target } from '../engine/target.js';

/** What the sandbox's own helper for other packages' tests returns. */
interface SandboxProcess extends Target {
  stop(): Promise<void>;
}

// The helper is imported by name at run time, so the library never depends on the sandbox
// and the type check does not follow into it; the sandbox itself runs as its own process.
const helper = '@exchange-kit/sandbox/testing';

/** Starts the reference server as its own process, in memory, on a free loopback port. */
export async function startSandboxTarget(): Promise<{ target: Target; close(): Promise<void> }> {
  const { startSandboxProcess } = (await import(/* @vite-ignore */ helper)) as {
    startSandboxProcess(timeoutMs?: number): Promise<SandboxProcess>;
  };
  const { stop, ...target } = await startSandboxProcess(90_000);
  return { target, close: stop };
}
