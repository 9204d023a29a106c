import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startRegistry } from '../src/registry.js';
import { rehearseRelease } from '../src/rehearsal.js';
import type { WorkspacePackage } from '../src/workspace.js';

declare module 'vitest' {
  export interface ProvidedContext {
    registryUrl: string;
    /** The fresh clone the release was made from: the guides start the sandbox in a clone. */
    clone: string;
    released: WorkspacePackage[];
    publishLog: string;
  }
}

/**
 * One release per run, shared by every test: the rehearsal's checks and the guides' journeys
 * install what it published.
 */
export default async function setup(project: TestProject) {
  const scratch = await mkdtemp(join(tmpdir(), 'exchange-kit-release-'));
  const registry = await startRegistry();
  try {
    const rehearsal = await rehearseRelease(registry, scratch);
    console.log(`release rehearsal (s): ${JSON.stringify(rehearsal.timings)}`);
    project.provide('registryUrl', registry.url);
    project.provide('clone', rehearsal.clone);
    project.provide('released', rehearsal.released);
    project.provide('publishLog', rehearsal.publishLog);
  } catch (error) {
    await registry.stop();
    await rm(scratch, { recursive: true, force: true });
    throw error;
  }
  return async () => {
    await registry.stop();
    await rm(scratch, { recursive: true, force: true });
  };
}
