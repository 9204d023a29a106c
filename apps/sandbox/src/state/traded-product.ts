/** What this needs of a fill: the state that holds these imports this file, not the other way. */
interface Timed {
  readonly createdAt: number;
}

const day = 24 * 60 * 60 * 1000;

/**
 * What the rules and the market figures need of one product's fills, without its history:
 * how many it has, and those of the last 24 hours. Fills stay in the store; this is loaded
 * from it at start (`store/exchange-load.ts`) and kept in step as fills are made and undone.
 */
export class TradedProduct<Fill extends Timed> {
  /**
   * The fills made within a day of the newest, oldest first, and the newest one before them:
   * with it, taking back the fills a refused call made still leaves the last traded price.
   * Times only grow, so no later read asks for a fill older than a day before the newest.
   */
  readonly recent: Fill[] = [];

  /** @param count How many fills the product has, stored or not: what a mark price waits on. */
  constructor(public count = 0) {}

  /** The newest fill, whose price is the last traded one. */
  get last(): Fill | undefined {
    return this.recent.at(-1);
  }

  add(fill: Fill): void {
    this.count++;
    this.recent.push(fill);
    let older = 0;
    while (
      older < this.recent.length &&
      (this.recent[older] as Fill).createdAt <= fill.createdAt - day
    ) {
      older++;
    }
    // All but the newest of those older than a day go.
    if (older > 1) this.recent.splice(0, older - 1);
  }

  /** Takes back a fill not yet stored, made by a call that was then refused. */
  drop(fill: Fill): void {
    const at = this.recent.lastIndexOf(fill);
    if (at === -1) return;
    this.recent.splice(at, 1);
    this.count--;
  }
}
