import { Check, report, type Walk } from './check.js';
import { LiteralCheck } from './leaf.js';
import type { CheckIssue } from './issue.js';
import type { StrictObjectCheck, Shape } from './object.js';

type TypeOf<C> = C extends Check<infer T> ? T : never;

class UnionCheck<T> extends Check<T> {
  constructor(
    private readonly options: readonly Check[],
    private readonly expectation: string,
  ) {
    super();
  }

  visit(value: unknown, walk: Walk): boolean {
    const fitting: { issues: CheckIssue[]; stopped: boolean }[] = [];
    for (const option of this.options) {
      const own: Walk = { path: walk.path, issues: [] };
      const stopped = option.visit(value, own);
      if (own.issues.length === 0) return false;
      // Only soft issues: the value has this option's shape, so its own problems are the ones to say.
      if (!stopped && own.issues.every((issue) => issue.soft)) fitting.push({ issues: own.issues, stopped });
    }
    const only = fitting.length === 1 ? fitting[0] : undefined;
    if (only !== undefined) {
      walk.issues.push(...only.issues);
      return only.stopped;
    }
    report(walk, 'invalid_union', this.expectation, false);
    return false;
  }
}

/** Passes when one of `options` passes; else the one option the value fits explains, or `expectation`. */
export function union<const C extends readonly Check[]>(options: C, expectation: string): Check<TypeOf<C[number]>> {
  return new UnionCheck(options, expectation);
}

export interface DiscriminatedMessages {
  /** When the value is not an object at all. */
  notObject: string;
  /** When the discriminating key has none of the options' values (reported at that key). */
  unknownTag: string;
}

class DiscriminatedUnionCheck<T> extends Check<T> {
  private readonly byTag = new Map<unknown, Check>();

  constructor(
    private readonly key: string,
    options: readonly StrictObjectCheck<Shape>[],
    private readonly messages: DiscriminatedMessages,
  ) {
    super();
    for (const option of options) {
      const tag = option.shape[key];
      if (!(tag instanceof LiteralCheck)) throw new TypeError(`discriminatedUnion: an option has no literal "${key}"`);
      this.byTag.set(tag.value, option);
    }
  }

  visit(value: unknown, walk: Walk): boolean {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      report(walk, 'invalid_type', this.messages.notObject, false);
      return false;
    }
    const option = this.byTag.get((value as Record<string, unknown>)[this.key]);
    if (option !== undefined) return option.visit(value, walk);
    report(walk, 'invalid_union', this.messages.unknownTag, false, this.key);
    return false;
  }
}

/** One of several strict objects, chosen by the literal value of `key`; the chosen one checks the rest. */
export function discriminatedUnion<const C extends readonly StrictObjectCheck<Shape>[]>(
  key: string,
  options: C,
  messages: DiscriminatedMessages,
): Check<TypeOf<C[number]>> {
  return new DiscriminatedUnionCheck(key, options, messages);
}
