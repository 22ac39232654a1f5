import { RunExportError } from '../debugger/run-export.js';
import { RecordingError } from '../durable/replay/recording.js';
import { RunNotFoundError } from '../durable/store/run-store-errors.js';
import { errorMessage } from '../util/describe.js';
import { inertText } from '../util/inert-text.js';
import { CliUsageError, type CliIo } from './cli-io.js';
import { WorkflowsModuleError } from './load-workflows.js';

/**
 * Prints why a command failed, never a stack trace, and returns the exit code: 2 with the usage
 * for a mistake in the call, else 1. Messages may quote stored names, so they are made inert.
 */
export function reportError(error: unknown, io: CliIo, usage: string): number {
  if (error instanceof CliUsageError) {
    io.err(`${inertText(error.message)}\n\n${usage}`);
    return 2;
  }
  // A file that is not a recording (or one from a newer release): the call's mistake, said plainly.
  if (error instanceof RecordingError) {
    io.err(inertText(error.message));
    return 2;
  }
  // These messages say all there is; the class name adds nothing.
  if (error instanceof RunNotFoundError || error instanceof RunExportError || error instanceof WorkflowsModuleError) {
    io.err(inertText(error.message));
    return 1;
  }
  const name = error instanceof Error && typeof error.name === 'string' ? error.name : 'Error';
  io.err(`${inertText(name)}: ${inertText(errorMessage(error))}`);
  return 1;
}
