/**
 * Clock readings kept as small integers where that loses nothing. A number field holding a
 * fraction is a 16-byte heap object of its own in V8; a node keeps two (its start and end) for
 * as long as the tree keeps it. A reading is kept as ticks of 2^-12 ms from an earlier one, only
 * when adding the ticks back gives the very same number (decision 0091); else as it is.
 */

// A const enum: the build writes the numbers into the code (module constants would be loaded and
// checked at run time on each use, twice per step).
const enum Ticks {
  /** 2^-12 ms is one unit in the last place of a reading in ms since 1970 (2^40..2^41 ms, years 2004–2039). */
  PER_MS = 4096,
  /** 2^30 - 1, under 2^30 (~262 s of ticks): a small integer on every V8 build, pointer compression or not. */
  MAX = 1073741823,
  /** How many of the newest eras a reading is tried against (a backdated start opens one of its own). */
  ERAS_TRIED = 4,
}

/** Eras the process may open: 4,096 of ~262 s, ~12 days of new nodes; then readings stay numbers. */
export const MAX_ERAS = 4096;

/** The first reading of each era, in the order they were opened. */
const eraBases: number[] = [];

/** `to - from` in ticks when `from` plus them is exactly `to` again; -1 when not. */
export function ticksBetween(from: number, to: number): number {
  const ticks = (to - from) * Ticks.PER_MS;
  // In range first, so `| 0` (a small integer: arithmetic on fractions gives a heap number even
  // when whole, and a field would keep that 16-byte box) is the number itself when whole.
  if (!(ticks >= 0 && ticks <= Ticks.MAX)) return -1;
  const whole = ticks | 0;
  if (whole !== ticks || from + whole / Ticks.PER_MS !== to) return -1;
  // -0 is the one reading `!==` cannot tell from 0; keep it as it is.
  return to === 0 && 1 / to < 0 ? -1 : whole;
}

/** The reading `ticks` after `from` (exact when `ticksBetween` gave them). */
export function afterTicks(from: number, ticks: number): number {
  return from + ticks / Ticks.PER_MS;
}

/** The ticks from its era's first reading of the reading `eraOf` last found an era for. */
let foundTicks = 0;

/**
 * An era `at` can be kept in as ticks (opened for it if needed), or -1; its ticks in that era are
 * then `ticksFound()` (worked out once, not again by the caller).
 */
export function eraOf(at: number): number {
  const last = eraBases.length - 1;
  // The newest era first, inline: nearly every reading is in it.
  if (last >= 0) {
    const ticks = ticksBetween(eraBases[last] as number, at);
    if (ticks >= 0) {
      foundTicks = ticks;
      return last;
    }
  }
  return olderOrNewEra(at, last);
}

/** `eraOf` past the newest era: one of the few before it, or a new one. */
function olderOrNewEra(at: number, last: number): number {
  for (let era = last - 1; era >= 0 && era > last - Ticks.ERAS_TRIED; era -= 1) {
    const ticks = ticksBetween(eraBases[era] as number, at);
    if (ticks >= 0) {
      foundTicks = ticks;
      return era;
    }
  }
  if (eraBases.length >= MAX_ERAS || ticksBetween(at, at) !== 0) return -1;
  eraBases.push(at);
  foundTicks = 0;
  return last + 1;
}

/** The ticks of the reading `eraOf` was last given, in the era it returned (when not -1). */
export function ticksFound(): number {
  return foundTicks;
}

export function eraBase(era: number): number {
  return eraBases[era] as number;
}
