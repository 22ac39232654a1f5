import { describe, expect, it } from 'vitest';
import { createWorkflow, progressDisplay, type ProgressDisplay } from 'groundswell';

/** What a hostile name carries: a title change (OSC ... BEL), clear screen, cursor up, CR, a C1 CSI, bidi, and a forged line. */
const FORGED = '✗ workflow Deploy failed';
const hostile = (label: string): string => `${label}\x1b]0;pwned\x07\x1b[2J\x1b[1A\rX\u009b31m\u202eevil\u2066\x7f\n${FORGED}`;
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** The display's own codes on a TTY: cursor up + CR, clear line, clear below. */
// eslint-disable-next-line no-control-regex
const OWN_CODES = /\x1b\[\d+A\r|\x1b\[2K|\x1b\[0J/g;

class FakeStream {
  readonly writes: string[] = [];
  constructor(
    readonly isTTY: boolean,
    readonly columns = 400,
  ) {}
  write(text: string): boolean {
    this.writes.push(text);
    return true;
  }
}

function expectInert(text: string, labels: readonly string[]): void {
  expect(text).not.toMatch(ACTIVE);
  const lines = text.split('\n');
  for (const line of lines) expect(line.trimStart().startsWith(FORGED)).toBe(false);
  for (const label of labels) expect(lines.some((line) => line.includes(label) && line.includes(FORGED))).toBe(true);
}

function feed(progress: ProgressDisplay): { tickless: () => void } {
  let id = 0;
  const event = (type: string, fields: Record<string, unknown>, nodeId: string) =>
    progress.onEvent({ id: ++id, nodeId, workflowId: 'w', timestamp: 0, type, ...fields } as never);
  event('workflowStart', { name: hostile('ROOT') }, 'root');
  event('stepStart', { name: hostile('STEP') }, 's1');
  event('agentPromptStart', { agentName: hostile('AGENT'), model: 'm', promptId: 'p' }, 'call');
  return {
    tickless: () => {
      event('stepEnd', { name: hostile('STEP'), status: 'failed', attempts: 1, duration: 5 }, 's1');
      event('workflowStart', { name: hostile('CHILD') }, 'child');
      event('workflowEnd', { name: hostile('CHILD'), status: 'completed', duration: 5 }, 'child');
      event('workflowEnd', { name: hostile('ROOT'), status: 'failed', duration: 9 }, 'root');
    },
  };
}

describe('progressDisplay shows names inert', () => {
  it('on a TTY: only its own cursor codes reach the terminal, and a name with a newline stays on its line', () => {
    const stream = new FakeStream(true);
    let tick: (() => void) | undefined;
    const progress = progressDisplay({ stream, clock: { now: () => 0 }, timer: (fn) => ((tick = fn), () => undefined) });
    const run = feed(progress);
    tick?.();
    const live = stream.writes.join('').replace(OWN_CODES, '');
    expectInert(live, ['ROOT', 'STEP', 'AGENT']);
    // Head, counts, running: three rows, however many newlines the names hold.
    expect(stream.writes.at(-1)?.split('\n')).toHaveLength(4);
    run.tickless();
    expectInert(stream.writes.join('').replace(OWN_CODES, ''), ['ROOT']);
  });

  it('as plain lines: finished workflows and failures are one line each', () => {
    const stream = new FakeStream(false);
    const progress = progressDisplay({ stream, clock: { now: () => 0 }, timer: () => () => undefined });
    feed(progress).tickless();
    const text = stream.writes.join('');
    expectInert(text, ['STEP', 'CHILD', 'ROOT']);
    expect(text.split('\n').filter(Boolean)).toHaveLength(4);
  });

  it('a real run with a hostile step name', async () => {
    const stream = new FakeStream(false);
    const workflow = createWorkflow({ name: hostile('REAL') }, async (ctx) => {
      await ctx.step(hostile('BROKEN'), () => {
        throw new Error('no');
      }).catch(() => undefined);
    });
    workflow.addObserver(progressDisplay({ stream, timer: () => () => undefined }));
    await workflow.run();
    expectInert(stream.writes.join(''), ['REAL', 'BROKEN']);
  });
});
