import { runCli } from './run-cli.js';

// The `groundswell` bin (bin/groundswell.mjs loads this build).
process.exitCode = await runCli(process.argv.slice(2));
