import type { DemoCredentials } from '../config.js';
import { placeDemoBook } from '../demo-market.js';
import { seedDemo } from '../demo-seed.js';
import { Sequencer } from '../state/sequencer.js';
import type { Database } from './database.js';
import { sandboxStorage } from './sandbox-storage.js';

export { demoUserId, marketMakerId, type NewProduct, secondDemoUserId } from '../demo-market.js';

/**
 * Opens the sandbox on `db` and seeds it: the demo market once, in one batch like any call's,
 * and the demo users, their tokens and the partner application matched to `credentials` on
 * every start. Resolves to the exchange, its market maker's book placed on a new store.
 */
export async function seed(
  db: Database,
  credentials: DemoCredentials,
  now: number,
): Promise<Sequencer> {
  const { sequencer, seeded } = seedAhead(db, credentials, now);
  await seeded;
  return sequencer;
}

/**
 * `seed`, with the sequencer handed over at once, while the store opens and its state is read
 * in and seeded: what only holds on to it (the server's routes) is built meanwhile, and calls
 * wait.
 */
export function seedAhead(
  db: Database,
  credentials: DemoCredentials,
  now: number,
  /** What the store is read after: its migration. */
  after?: Promise<unknown>,
): { sequencer: Sequencer; seeded: Promise<void> } {
  const sequencer = Sequencer.opening(sandboxStorage(db), { after });
  const seeded = sequencer
    .run((journal) => seedDemo(journal, credentials, now))
    .then(async (fresh) => {
      if (fresh) await placeDemoBook(sequencer, now);
    });
  return { sequencer, seeded };
}
