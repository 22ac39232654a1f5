/**
 * The run data naming how many signals of each name the run's waits had taken (or refused) when
 * it last suspended: written with the events of the suspension, so a resume knows which of its
 * waits' `signalReceived` events the log holds already.
 */
export const SIGNALS_TAKEN = 'signals:taken';

/** The counts stored under `SIGNALS_TAKEN` in a loaded run's data; none when absent or not counts. */
export function signalsTaken(data: Readonly<Record<string, unknown>>): ReadonlyMap<string, number> {
  const taken = new Map<string, number>();
  const stored = Object.hasOwn(data, SIGNALS_TAKEN) ? data[SIGNALS_TAKEN] : undefined;
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return taken;
  for (const [name, count] of Object.entries(stored)) {
    if (Number.isSafeInteger(count) && (count as number) > 0) taken.set(name, count as number);
  }
  return taken;
}
