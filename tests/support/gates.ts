import { createWorkflow, type Workflow } from 'groundswell';
import { deferred, type Deferred } from './deferred.js';

/**
 * Child bodies that each wait for their own gate, recording the order they started in and how many
 * were running at once: a concurrency limit is measured by a counter, never by wall-clock time.
 */
export class Gates {
  readonly started: number[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private readonly gates: Array<Deferred<void>>;
  private readonly starts: Array<Deferred<void>>;

  constructor(
    readonly count: number,
    private readonly failing: ReadonlySet<number> = new Set(),
  ) {
    this.gates = Array.from({ length: count }, () => deferred());
    this.starts = Array.from({ length: count }, () => deferred());
  }

  /** The body of job `index`: resolves to `index * 10`, or throws for a failing index. */
  async body(index: number): Promise<number> {
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    this.started.push(index);
    this.starts[index]?.resolve();
    try {
      await this.gates[index]?.promise;
      if (this.failing.has(index)) throw new Error(`job ${index} failed`);
      return index * 10;
    } finally {
      this.inFlight -= 1;
    }
  }

  /** Functional child workflows `c0 .. c<count-1>` running the bodies. */
  workflows(): Array<Workflow<number>> {
    return Array.from({ length: this.count }, (_, index) => createWorkflow({ name: `c${index}` }, () => this.body(index)));
  }

  startOf(index: number): Promise<void> {
    return (this.starts[index] as Deferred<void>).promise;
  }

  release(index: number): void {
    this.gates[index]?.resolve();
  }

  releaseAll(): void {
    for (let index = 0; index < this.count; index += 1) this.release(index);
  }
}
