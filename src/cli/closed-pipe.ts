/**
 * A reader that stops early (`groundswell runs show <id> | head`) closes the pipe, and the next
 * write fails with EPIPE, emitted as an 'error' event that would end the process with a stack
 * trace. The reader has what it wanted: the stream is left destroyed (`processIo` then drops
 * output) and the command finishes with its own exit code. Any other stream error still throws.
 */
export function quietOnClosedPipe(stream: NodeJS.WritableStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
    throw error;
  });
}
