/**
 * How long a DBOS test waits with nothing observable moving before it fails. A loaded machine
 * moves slower but still moves (rows change, requests arrive, processes print), so it only makes
 * the tests slower; this window is for a run that is truly stuck, and names what it was waiting for.
 */
export const STALL_MS = 60_000;

/** How often a wait looks at its probe: a poll interval, not a budget. */
const POLL_MS = 1_000;

/** What a probe sees: named observations; any of them changing is progress. */
export type Fingerprint = Readonly<Record<string, number | string>>;
export type ProgressProbe = () => Fingerprint | Promise<Fingerprint>;

export interface ProgressWatch {
  /**
   * `promise`'s outcome, waited for as long as the probe's fingerprint keeps changing; rejects
   * once it has not changed for the stall window, naming `what` and the last progress seen.
   */
  until<T>(what: string, promise: Promise<T>): Promise<T>;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** `promise`, or `undefined` once `ms` have passed without it settling. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([promise, elapsed]).finally(() => clearTimeout(timer));
}

function changes(before: Fingerprint, after: Fingerprint): string[] {
  const moved: string[] = [];
  for (const [key, value] of Object.entries(after)) {
    if (before[key] !== value) moved.push(`${key}: ${before[key] ?? '-'} → ${value}`);
  }
  return moved;
}

function listed(seen: Fingerprint): string {
  const entries = Object.entries(seen);
  return entries.length === 0 ? '(nothing observable)' : entries.map(([key, value]) => `  ${key}: ${value}`).join('\n');
}

/** Waits that fail on a stall, never on a deadline. An empty probe makes `until` fail after one stall window. */
export function watchProgress(probe: ProgressProbe = () => ({}), stallMs: number = STALL_MS): ProgressWatch {
  let seen: Fingerprint = {};
  let lastMove: { what: string; at: number } | undefined;
  let probeError: string | undefined;
  const look = async (): Promise<Fingerprint> => {
    try {
      const now = await probe();
      probeError = undefined;
      return now;
    } catch (error) {
      // A failed look is not progress: keep what was seen, and say why in a stall's message.
      probeError = error instanceof Error ? error.message : String(error);
      return seen;
    }
  };
  return {
    async until<T>(what: string, promise: Promise<T>): Promise<T> {
      const outcome: Promise<Outcome<T>> = promise.then(
        (value) => ({ ok: true, value }),
        (error: unknown) => ({ ok: false, error }),
      );
      // The previous wait ending was progress: each wait gets a full window from its start.
      let movedAt = Date.now();
      for (;;) {
        const settled = await within(outcome, POLL_MS);
        if (settled !== undefined) {
          if (settled.ok) return settled.value;
          throw settled.error;
        }
        // A probe that never answers is a stall too.
        const now = await within(look(), stallMs);
        if (now !== undefined) {
          const moved = changes(seen, now);
          seen = now;
          if (moved.length > 0) {
            movedAt = Date.now();
            lastMove = { what: moved.join('; '), at: movedAt };
            continue;
          }
        }
        const still = Date.now() - movedAt;
        if (still >= stallMs) {
          const last = lastMove === undefined ? 'none seen' : `${Math.round((Date.now() - lastMove.at) / 1000)} s ago: ${lastMove.what}`;
          throw new Error(
            `waited for ${what}, but nothing moved for ${Math.round(still / 1000)} s (stall window ${stallMs / 1000} s).\n` +
              `Last progress, ${last}\n` +
              `Last seen:\n${listed(seen)}` +
              (probeError === undefined ? '' : `\nThe last look failed: ${probeError}`),
          );
        }
      }
    },
  };
}
