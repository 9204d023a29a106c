/** The sandbox's clock, which `/test/clock` moves forward and never back. */
export class TestClock {
  private offsetMs = 0;
  constructor(private readonly base: () => number) {}
  readonly now = () => this.base() + this.offsetMs;
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
