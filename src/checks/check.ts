import { CheckError, type CheckIssue, type IssueCode } from './issue.js';

/** The walk through a value: the path to the current value (pushed and popped) and the issues so far. */
export interface Walk {
  readonly path: PropertyKey[];
  readonly issues: CheckIssue[];
}

export type CheckResult<T> = { success: true; data: T } | { success: false; error: CheckError };

/** Records one issue at the current path (copied: the walk's path keeps changing). */
export function report(walk: Walk, code: IssueCode, message: string, soft: boolean, key?: PropertyKey): void {
  const path = key === undefined ? walk.path.slice() : [...walk.path, key];
  walk.issues.push({ code, path, message, soft });
}

/**
 * A config check: walks a value and records what is wrong with it. `T` is the type a passing value
 * has (checks never transform). Nothing is allocated while a value passes.
 */
export abstract class Check<T = unknown> {
  /** Type-level only: what a passing value is. */
  declare readonly _type: T;

  /** Records the issues of `value`; true when the check stopped early (a pipe whose first step failed). */
  abstract visit(value: unknown, walk: Walk): boolean;

  /** The same check, with undefined (or a missing key) allowed. */
  optional(): Check<T | undefined> {
    return new OptionalCheck(this);
  }

  /** This check, then `next` only when this one passed. */
  pipe<U>(next: Check<U>): Check<U> {
    return new PipeCheck(this, next);
  }

  safeParse(value: unknown): CheckResult<T> {
    const walk: Walk = { path: [], issues: [] };
    this.visit(value, walk);
    return walk.issues.length === 0 ? { success: true, data: value as T } : { success: false, error: new CheckError(walk.issues) };
  }
}

class OptionalCheck<T> extends Check<T | undefined> {
  constructor(private readonly inner: Check<T>) {
    super();
  }

  visit(value: unknown, walk: Walk): boolean {
    return value === undefined ? false : this.inner.visit(value, walk);
  }
}

class PipeCheck<T> extends Check<T> {
  constructor(
    private readonly first: Check,
    private readonly next: Check<T>,
  ) {
    super();
  }

  visit(value: unknown, walk: Walk): boolean {
    const before = walk.issues.length;
    this.first.visit(value, walk);
    // Any issue but unknown keys stops the pipe: the next step would only repeat it.
    for (let i = before; i < walk.issues.length; i++) if (walk.issues[i]?.code !== 'unrecognized_keys') return true;
    return this.next.visit(value, walk);
  }
}
