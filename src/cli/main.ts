import { errorMessage } from '../util/describe.js';
import { inertText } from '../util/inert-text.js';
import { processIo } from './cli-io.js';
import { quietOnClosedPipe } from './closed-pipe.js';
import { runCli } from './run-cli.js';

// The `groundswell` bin (bin/groundswell.mjs loads this build). No top-level await: the CommonJS build has none.
quietOnClosedPipe(process.stdout);
quietOnClosedPipe(process.stderr);
void runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  // runCli reports its own failures; this is the last guard against a stack trace.
  (error: unknown) => {
    processIo.err(`${inertText(error instanceof Error ? error.name : 'Error')}: ${inertText(errorMessage(error))}`);
    process.exitCode = 1;
  },
);
