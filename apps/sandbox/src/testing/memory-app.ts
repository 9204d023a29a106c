/**
 * The HTTP edge (`createApp`) on the demo sandbox in memory: the edge's own tests call it with
 * Fastify's inject, and a client that needs a socket gets one with `app.listen`, without the
 * time a store takes to open. With `testControl`, it serves the test-control paths too, on a
 * clock they move.
 */
import pino from 'pino';
import { createApp } from '../http/app.js';
import { buildRoutes } from '../http/router.js';
import { findSessionSecret } from '../partner/handlers.js';
import { sandboxHandlers, sandboxStoredReads } from '../sandbox-handlers.js';
import { clockOffsetOf, TestClock } from '../test-control/test-clock.js';
import { testControl } from '../test-control/test-control.js';
import { type MemorySandbox, memorySandbox } from './memory-sandbox.js';

export interface MemoryApp {
  sandbox: MemorySandbox;
  app: Awaited<ReturnType<typeof createApp>>['app'];
}

export async function memoryApp(options: { testControl?: boolean } = {}): Promise<MemoryApp> {
  let offset = () => 0;
  const clock = options.testControl ? new TestClock(Date.now, () => offset()) : undefined;
  const sandbox = await memorySandbox(clock ? { now: clock.now } : {});
  offset = clockOffsetOf(sandbox.sequencer);
  const { app } = await createApp({
    sequencer: sandbox.sequencer,
    routes: buildRoutes(),
    handlers: sandboxHandlers('http://sandbox.invalid'),
    storedReads: sandboxStoredReads,
    findSessionSecret,
    now: sandbox.now,
    log: pino({ level: 'silent' }),
    ...(clock ? { pages: testControl({ sequencer: sandbox.sequencer, clock }) } : {}),
  });
  return { sandbox, app };
}
