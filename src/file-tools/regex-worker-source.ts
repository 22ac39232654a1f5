/** One matching line as the worker reports it. */
export interface WorkerHit {
  readonly line: number;
  /** The line's first `headChars` characters. */
  readonly head: string;
  /** The whole line's length in characters. */
  readonly length: number;
}

/** What the worker receives per file: the text, how many hits to return at most, how much of each line to keep. */
export interface WorkerRequest {
  readonly text: string;
  readonly limit: number;
  readonly headChars: number;
}

/**
 * The regex worker's program, run with `new Worker(source, { eval: true })`.
 *
 * It is a string of plain JavaScript rather than a module file so that it runs the same from the
 * TypeScript sources (vitest, tsx) and from every bundle tsup emits (ESM and CJS) without a
 * separate entry point or a path to resolve at run time. It stays tiny on purpose: compile the
 * pattern once, then for each file split lines (`\n`, with `\r` before it; no empty line after a
 * final break, as the line reader does) and report the first `limit` matching lines.
 */
export const REGEX_WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const pattern = new RegExp(workerData.source, workerData.flags);
parentPort.on('message', (request) => {
  const lines = request.text.split(/\\r?\\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  const hits = [];
  for (let i = 0; i < lines.length && hits.length < request.limit; i += 1) {
    const line = lines[i];
    if (pattern.test(line)) hits.push({ line: i + 1, head: line.slice(0, request.headChars), length: line.length });
  }
  parentPort.postMessage(hits);
});
`;
