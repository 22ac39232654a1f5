/**
 * Example 12: trajectory checkpoints, the seed's reference failure.
 *
 * - tools declare what they do for the checkpoint: `effect` ('read' | 'mutate' | 'verify') and
 *   `target(input)` (the file they touch)
 * - a guard (a preToolUse hook) refuses full rewrites of a file that already exists, as an editor
 *   protecting unread bytes would
 * - the model tries `file_write` twice, each time with a changed full payload; changing the
 *   payload looks like progress, but the prerequisite (a fresh read of the file) never changed
 * - with `trajectory: { checkpoint: 'adaptive' }` the agent recomputes a checkpoint before every
 *   model request from what the tools did, each fact tied to its evidence (`[turn 2/synthetic_block]`);
 *   it turns `recovery_required` with a fresh-read next action and a `Do not repeat:` line, and is
 *   sent as the last system block (one block, replaced on every request, never accumulated)
 * - the model reads the file, makes a targeted edit, runs the tests, and the run completes; the
 *   verifier's outcome comes from its summary line (`100% tests passed, 0 tests failed out of 3` is a
 *   pass, though it contains the word "failed"), so a pass puts the run back on trajectory
 * - every new checkpoint revision is a `trajectoryCheckpoint` event; the tree shows the latest one
 *   on the agent call, and the run export keeps it
 *
 * Offline by default (a scripted model): prints each checkpoint revision, the checkpoint the model
 * got after the second refused rewrite, and the tree. With ANTHROPIC_API_KEY set it calls the real
 * API (the model then chooses its own path).
 * Run: npx tsx examples/12-trajectory-checkpoints.ts
 */
import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  defineTool,
  exportRun,
  WorkflowTreeDebugger,
  type AgentHooks,
  type WorkflowEvent,
} from 'groundswell';
import { json, toolUse, type RecordedRequest, type ScriptStep } from 'groundswell/testing';
import { exampleClient, online, tokens } from './support/model.js';

// An in-memory working copy with one existing file.
const files = new Map<string, string>([['pal.cpp', 'int pal_init() {\n  return 0;\n}\n']]);

// The model's side, offline: two changed full rewrites, then (after the checkpoint) read, edit, test, answer.
const script: ScriptStep[] = [
  toolUse('file_write', { path: 'pal.cpp', content: 'int pal_init() { return 1; }\n' }, tokens(620, 40)),
  toolUse('file_write', { path: 'pal.cpp', content: '// PAL\nint pal_init() {\n  return 1;\n}\n' }, tokens(700, 48)),
  toolUse('file_read', { path: 'pal.cpp' }, { text: 'The checkpoint says to read pal.cpp first.', ...tokens(930, 30) }),
  toolUse('file_edit', { path: 'pal.cpp', find: 'return 0;', replace: 'return 1;' }, tokens(1010, 52)),
  toolUse('run_tests', { path: 'pal.cpp' }, tokens(1090, 24)),
  json({ done: true, summary: 'pal_init now returns 1; the tests pass.' }, tokens(1160, 30)),
];
// Offline, the responder keeps every request so the example can show the checkpoint each one carried.
const sent: RecordedRequest[] = [];
const client = exampleClient((request) => {
  sent.push(request);
  const step = script.shift();
  if (step === undefined) throw new Error('the script ran out');
  return step;
});

const fileWrite = defineTool({
  name: 'file_write',
  description: 'Write a whole file (new files only; existing files need file_read then file_edit).',
  effect: 'mutate',
  target: (input) => input.path,
  input: z.object({ path: z.string(), content: z.string() }),
  execute: ({ path, content }) => {
    files.set(path, content);
    return `wrote ${content.length} chars to ${path}`;
  },
});
const fileRead = defineTool({
  name: 'file_read',
  description: 'Read a file.',
  effect: 'read',
  target: (input) => input.path,
  input: z.object({ path: z.string() }),
  execute: ({ path }) => files.get(path) ?? `${path} does not exist`,
});
const fileEdit = defineTool({
  name: 'file_edit',
  description: 'Replace exact text in a file.',
  effect: 'mutate',
  target: (input) => input.path,
  input: z.object({ path: z.string(), find: z.string(), replace: z.string() }),
  execute: ({ path, find, replace }) => {
    const content = files.get(path);
    if (content === undefined || !content.includes(find)) throw new Error(`"${find}" not found in ${path}`);
    files.set(path, content.replace(find, replace));
    return `edited ${path}`;
  },
});
const runTests = defineTool({
  name: 'run_tests',
  description: 'Run the unit tests of a file.',
  effect: 'verify',
  target: (input) => input.path,
  input: z.object({ path: z.string() }),
  // Prints what ctest prints; the checkpoint reads the summary line (no `verdict` needed for common runners).
  execute: ({ path }) =>
    files.get(path)?.includes('return 1;')
      ? 'Test project /work/build\n\n100% tests passed, 0 tests failed out of 3\n'
      : 'Test project /work/build\n\n67% tests passed, 1 tests failed out of 3\n\nThe following tests FAILED:\n\t  2 - pal_init (Failed)\n',
});

// The guard: a full rewrite of an existing file is refused (the model gets the reason as an error).
const guard: AgentHooks = {
  preToolUse: ({ toolName, toolInput }) => {
    const path = (toolInput as { path?: unknown } | undefined)?.path;
    if (toolName === 'file_write' && typeof path === 'string' && files.has(path)) {
      return { block: true, reason: `${path} exists; read it and make a targeted edit instead of a full rewrite` };
    }
    return undefined;
  },
};

const coder = createAgent({
  name: 'coder',
  system: 'You change C++ code with the file tools, then run the tests.',
  tools: [fileWrite, fileRead, fileEdit, runTests],
  hooks: guard,
  trajectory: { checkpoint: 'adaptive' },
  client,
});

const fix = createWorkflow({ name: 'fix PAL', goal: 'Make pal_init() in pal.cpp return 1, with the tests passing' }, (ctx) =>
  ctx.step('edit', () =>
    coder.prompt(
      createPrompt({
        name: 'fix pal_init',
        user: 'pal_init() in pal.cpp must return 1. Change it and run the tests.',
        responseFormat: z.object({ done: z.boolean(), summary: z.string() }),
      }),
    ),
  ),
);

// Each new revision of the checkpoint arrives as one event (an unchanged checkpoint sends none).
console.log('== trajectoryCheckpoint events, live ==');
fix.addObserver({
  onEvent: (event: WorkflowEvent) => {
    if (event.type !== 'trajectoryCheckpoint') return;
    const cp = event.checkpoint;
    console.log(`r${event.revision} ${event.assessment} (before request ${cp.turn}, trigger: ${cp.trigger}, injected: ${event.injected})`);
    console.log(`   next: ${cp.nextAction}`);
    for (const item of cp.doNotRepeat) console.log(`   do not repeat: ${item}`);
  },
});

const result = await fix.run();
console.log(`\nresult: ${JSON.stringify(result)}`);
console.log(`pal.cpp now:\n${(files.get('pal.cpp') ?? '').trimEnd()}`);

function lastSystemBlock(request: RecordedRequest): string {
  const system = request.body.system;
  if (system === undefined || typeof system === 'string') return '(no checkpoint)';
  const last: TextBlockParam | undefined = system.at(-1);
  return last?.text.startsWith('[TRAJECTORY CHECKPOINT]') ? last.text : '(no checkpoint)';
}

if (!online) {
  // Request #3 is the one after the second refused rewrite: the seed's checkpoint.
  const third = sent[2];
  if (third !== undefined) {
    console.log('\n== the checkpoint request #3 carried (the last system block) ==');
    for (const line of lastSystemBlock(third).split('\n')) console.log(`   | ${line}`);
  }
  console.log('\n== checkpoint blocks per request (one at most, never accumulated) ==');
  for (const request of sent) {
    const system = request.body.system;
    const count = Array.isArray(system) ? system.filter((b) => b.text.startsWith('[TRAJECTORY CHECKPOINT]')).length : 0;
    const assessment = /^Assessment: (.+)$/m.exec(lastSystemBlock(request))?.[1] ?? '-';
    console.log(`request #${request.index + 1}: ${count} checkpoint block(s), assessment ${assessment}`);
  }
  if (script.length > 0) throw new Error(`${script.length} scripted step(s) were not used`);
}

// The run export keeps the checkpoint events; the debugger shows the latest per agent call.
const exported = JSON.stringify(exportRun(fix.node));
const fromExport = WorkflowTreeDebugger.fromJSON(exported)
  .toTreeString()
  .split('\n')
  .find((line) => line.includes('checkpoint r'));
console.log(`\nthe export's tree agrees: ${fromExport?.trim().replace(/^│\s*/, '')}`);

console.log('\n== tree: the agent call shows its latest checkpoint ==');
console.log(new WorkflowTreeDebugger(fix).toTreeString());
