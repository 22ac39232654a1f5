import type { IncomingMessage } from 'node:http';
import { sendSignal, type SignalAnswer } from './send-signal.js';
import { signalRequestRefusal } from './signal-request.js';
import type { ViewerSignalTarget } from './signal-target.js';

/** What `POST /api/signal` needs of a viewer started with `allowSignals` (decision 0081). */
export interface SignalGate {
  /** Random per server; the page has it only when signals are allowed. */
  readonly token: string;
  /** The port the server listens on (known once it does). */
  port(): number;
  /** The shown run's store and id, when the page may answer its wait. */
  target(): ViewerSignalTarget | null;
  /** Tells open pages the wait was answered (the run record still says suspended until it resumes). */
  answered(message: string): void;
}

/** `POST /api/signal` with `{ "name": string, "value": any }`: checks the request, then sends as the CLI does. */
export async function answerSignal(gate: SignalGate | null, req: IncomingMessage, body: Buffer): Promise<SignalAnswer> {
  if (gate === null) return refused(403, 'This viewer does not take signals: start it with --allow-signals (serveViewer({ allowSignals: true })).');
  const refusal = signalRequestRefusal(req, gate.token, gate.port());
  if (refusal !== undefined) return refused(403, `Forbidden: ${refusal}.`);
  const sent = parse(body);
  if (sent === undefined) return refused(400, 'The body must be JSON: { "name": "<signal name>", "value": <the value> }.');
  const target = gate.target();
  if (target === null) return refused(409, 'The shown run has no store here to send a signal to (view it with --store or --pg).');
  const answer = await sendSignal(target, sent.name, sent.value);
  if ('message' in answer.body) gate.answered(answer.body.message);
  return answer;
}

function parse(body: Buffer): { name: string; value: unknown } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || !('value' in parsed)) return undefined;
  const { name, value } = parsed as { name?: unknown; value: unknown };
  return typeof name === 'string' && name.trim() !== '' ? { name, value } : undefined;
}

function refused(status: number, error: string): SignalAnswer {
  return { status, body: { error } };
}
