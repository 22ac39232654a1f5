import { errorMessage } from '../util/describe.js';
import type { ViewerSignalTarget } from './signal-target.js';

/** The JSON a signal POST is answered with: `message` on success, `error` (and what the run waits for) on refusal. */
export interface SignalAnswer {
  readonly status: number;
  readonly body: { readonly message: string } | { readonly error: string; readonly waitingFor?: string };
}

/**
 * Sends the page's signal as `groundswell runs signal <run> <name> <json>` does (no `--workflows`,
 * no `--ahead`): `signal()` refuses a name the run does not wait for and a value its wait's schema
 * refuses, and stores nothing then. The durable runtime is loaded on the first signal only, so a
 * viewer that never takes one does not load it.
 */
export async function sendSignal(target: ViewerSignalTarget, name: string, value: unknown): Promise<SignalAnswer> {
  const [{ signal }, errors, { RunNotFoundError }] = await Promise.all([
    import('../durable/runtime/signal.js'),
    import('../durable/runtime/replay-errors.js'),
    import('../durable/store/run-store-errors.js'),
  ]);
  const { runId, store } = target;
  try {
    await signal(runId, name, value, { store });
  } catch (error) {
    if (error instanceof errors.SignalNameError) {
      const near = error.suggestion === undefined ? '' : ` Did you mean "${error.suggestion}"?`;
      return { status: 409, body: { error: `Run ${runId} waits for signal "${error.waitingFor}", not "${name}"; nothing was stored.${near}`, waitingFor: error.waitingFor } };
    }
    if (error instanceof errors.SignalValueError) return { status: 422, body: { error: errorMessage(error) } };
    if (error instanceof errors.RunFinishedError) return { status: 409, body: { error: errorMessage(error) } };
    if (error instanceof RunNotFoundError) return { status: 404, body: { error: errorMessage(error) } };
    return { status: 500, body: { error: `Sending the signal failed: ${errorMessage(error)}` } };
  }
  // The CLI's words after `runs signal` without --workflows.
  return { status: 200, body: { message: `Signal "${name}" stored for run ${runId}; resume it with: groundswell runs resume ${runId} --workflows <module>` } };
}
