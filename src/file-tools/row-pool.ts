/**
 * A stack of reusable byte rows for the glob matcher: `take` hands out the next row (its first
 * `width` bytes zeroed), `mark`/`release` give back everything taken since a mark, and `reset`
 * starts a new match. Rows only grow, so after the first few paths nothing is allocated.
 */
export class RowPool {
  readonly #rows: Uint8Array[] = [];
  #top = 0;
  #width = 0;

  reset(width: number): void {
    this.#width = width;
    this.#top = 0;
  }

  take(): Uint8Array {
    let row = this.#rows[this.#top];
    if (row === undefined || row.length < this.#width) {
      row = new Uint8Array(Math.max(256, this.#width * 2));
      this.#rows[this.#top] = row;
    } else row.fill(0, 0, this.#width);
    this.#top += 1;
    return row;
  }

  mark(): number {
    return this.#top;
  }

  release(mark: number): void {
    this.#top = mark;
  }
}
