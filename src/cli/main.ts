import { runCli } from './run-cli.js';

// The `groundswell` bin (bin/groundswell.mjs loads this build). No top-level await: the CommonJS build has none.
void runCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
