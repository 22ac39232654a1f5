import { Check, report, type Walk } from './check.js';

class LeafCheck<T> extends Check<T> {
  constructor(
    readonly expectation: string,
    private readonly test: (value: unknown) => boolean,
    private readonly hard: boolean,
  ) {
    super();
  }

  visit(value: unknown, walk: Walk): boolean {
    if (!this.test(value)) report(walk, this.hard ? 'invalid_type' : 'custom', this.expectation, !this.hard);
    return false;
  }
}

/**
 * A leaf check: the value passes `test`, else the issue says `expectation`. Soft, so a union whose
 * other options failed on type reports the field inside the matching option, not only "invalid".
 */
export function expected<T>(expectation: string, test: (value: unknown) => boolean): Check<T> {
  return new LeafCheck<T>(expectation, test, false);
}

/** A type check: like `expected`, but a failure rules out a union option (a boolean is not an object). */
export function typed<T>(expectation: string, test: (value: unknown) => boolean): Check<T> {
  return new LeafCheck<T>(expectation, test, true);
}

/** Exactly `value`; a strict object's literal field is what a discriminated union picks by. */
export class LiteralCheck<const T extends string> extends Check<T> {
  constructor(readonly value: T) {
    super();
  }

  visit(value: unknown, walk: Walk): boolean {
    if (value !== this.value) report(walk, 'invalid_type', JSON.stringify(this.value), false);
    return false;
  }
}

export function literal<const T extends string>(value: T): LiteralCheck<T> {
  return new LiteralCheck(value);
}
