// What `pnpm start` (start.mjs) and its guard (start-guard.mjs) share about ending the process
// groups the servers run in.

/** How long a group has to end on SIGTERM before it is sent SIGKILL. */
export const graceMs = 5000;

/**
 * Sends `signal` to the process group `pgid` (a child leads a group of its own, with whatever
 * it started, a build's workers): false once the group is gone.
 */
export function signalGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}
