// The guard of `pnpm start` (start.mjs), a process of its own. Its stdin is a pipe whose other
// end only start.mjs holds, which the OS closes however start.mjs ends, SIGKILL included, when
// no handler there gets to run. start.mjs writes "+pgid" for each group it starts and "-pgid"
// once it is gone; at the end of input the guard does to the groups still running what
// start.mjs's stop would, then exits.
import { graceMs, signalGroup } from './process-groups.mjs';

const groups = new Set();
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop();
  for (const line of lines) {
    if (line[0] === '+') groups.add(Number(line.slice(1)));
    else groups.delete(Number(line.slice(1)));
  }
});
process.stdin.on('end', () => {
  for (const pgid of groups) signalGroup(pgid, 'SIGTERM');
  // Not their parent, the guard sees no exit: it asks whether each group is still there.
  const deadline = Date.now() + graceMs;
  const poll = setInterval(() => {
    const left = [...groups].filter((pgid) => signalGroup(pgid, 0));
    if (left.length > 0 && Date.now() < deadline) return;
    for (const pgid of left) signalGroup(pgid, 'SIGKILL');
    clearInterval(poll);
  }, 100);
});
