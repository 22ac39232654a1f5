import { pathToFileURL } from 'node:url';
import { progressDisplay, type ProgressDisplay } from 'groundswell';

/**
 * The progress display of an example with a long run: redrawn in place on stderr when the example
 * runs on its own in a terminal, plain lines when `npm run examples` runs every example in one
 * process (its output is read as a log, and a region redrawn in place would overwrite other lines).
 */
export function exampleProgress(exampleUrl: string): ProgressDisplay {
  const script = process.argv[1];
  const alone = script !== undefined && pathToFileURL(script).href === exampleUrl;
  return progressDisplay({ isTTY: alone && process.stderr.isTTY === true });
}
