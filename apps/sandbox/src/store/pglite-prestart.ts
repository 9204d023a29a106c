// Imported first by the command (`main.ts`), so the store's thread starts while the rest of
// the command's modules load: a module's imports are evaluated before its own code.
import { prestart } from './pglite-thread.js';

prestart();
