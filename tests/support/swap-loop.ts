import { spawn } from 'node:child_process';

/**
 * A child process that, as fast as it can, swaps the directory `dir` for a symlink to `outside`
 * and back (rename away, symlink in, unlink, rename back). A separate process, so the swaps really
 * interleave with the tools' file operations instead of waiting for the test's event loop.
 */
const SCRIPT = `
const fs = require('node:fs');
const [dir, outside] = process.argv.slice(1);
const parked = dir + '.parked';
let swaps = 0;
let running = true;
process.on('message', () => { running = false; });
function batch() {
  for (let i = 0; i < 200 && running; i += 1) {
    fs.renameSync(dir, parked);
    fs.symlinkSync(outside, dir);
    fs.unlinkSync(dir);
    fs.renameSync(parked, dir);
    swaps += 1;
  }
  if (running) setImmediate(batch);
  else process.send({ swaps }, () => process.exit(0));
}
process.send({ ready: true });
batch();
`;

export interface SwapLoop {
  /** Stops the loop with `dir` back in place; resolves to the number of swaps made. */
  stop(): Promise<number>;
}

export function startSwapLoop(dir: string, outside: string): Promise<SwapLoop> {
  const child = spawn(process.execPath, ['-e', SCRIPT, dir, outside], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let swaps = 0;
  child.on('message', (message: { swaps?: number }) => {
    if (typeof message.swaps === 'number') swaps = message.swaps;
  });
  return new Promise((resolve, reject) => {
    const early = (code: number | null): void => reject(new Error(`swap loop exited early with code ${String(code)}`));
    child.once('error', reject);
    child.once('exit', early);
    child.once('message', () => {
      resolve({
        async stop() {
          child.off('exit', early);
          if (child.connected) child.send('stop');
          await exited;
          return swaps;
        },
      });
    });
  });
}
