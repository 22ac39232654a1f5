import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  defineTool,
  exportRun,
  ObservedState,
  parseRunExport,
  UsageError,
  Workflow,
  WorkflowTreeDebugger,
  type AgentConfig,
  type AgentHooks,
  type SerializedNode,
  type WorkflowEvent,
} from 'groundswell';
import { httpError, json, ScriptedModel, toolUse, type MessageStep, type RecordedRequest } from 'groundswell/testing';
import { renderCheckpoint, DEFAULT_CHECKPOINT_CHARS } from '../../src/trajectory/render-checkpoint.js';
import { resultText, toolResultsOf } from '../support/agent-helpers.js';
import { eventsOfType, type EventOf } from '../support/events.js';
import {
  checkpointBlocks,
  checkpointOf,
  ENV_VAR,
  fileTools,
  fixPrompt,
  GOAL,
  harness,
  HEADING,
  occurrences,
  ORIGINAL,
  rawBodyOf,
  referenceScript,
  runInGoal,
  SYSTEM,
  systemBlocks,
  withEnv,
  type Harness,
  type Run,
} from './agent-helpers.js';
import { agentModel, providerPath, sentErrorFlag, systemText } from '../support/model-path.js';

type CheckpointEvent = EventOf<'trajectoryCheckpoint'>;
type Trajectory = NonNullable<AgentConfig['trajectory']>;

const LABEL = /\[turn \d+\/(tool_result|tool_failure|synthetic_block|child_result)\]/;
const FOOTER = 'Use this checkpoint to choose your next tool call. Do not repeat or quote it.';
const EPHEMERAL = { type: 'ephemeral' } as const;

/** Line `prefix…` of a checkpoint text (fails loudly when there is not exactly one). */
function lineOf(text: string | undefined, prefix: string): string {
  if (text === undefined) throw new Error('expected a checkpoint');
  const found = text.split('\n').filter((line) => line.startsWith(prefix));
  if (found.length !== 1) throw new Error(`expected one "${prefix}" line, found ${found.length} in:\n${text}`);
  return found[0] as string;
}

function linesStarting(text: string | undefined, prefix: string): string[] {
  return (text ?? '').split('\n').filter((line) => line.startsWith(prefix));
}

/** The reference failure run in a workflow with a declared goal, with the given trajectory options. */
async function referenceRun(trajectory?: Trajectory): Promise<Harness & { run: Run<{ done: boolean }> }> {
  const h = await harness(referenceScript(), trajectory === undefined ? {} : { trajectory });
  const run = await runInGoal(() => h.agent.prompt(fixPrompt()));
  h.model.assertComplete();
  return { ...h, run };
}

function bodies(requests: readonly RecordedRequest[]): string[] {
  return requests.map(rawBodyOf);
}

function checkpointEventsOf(events: readonly WorkflowEvent[]): CheckpointEvent[] {
  return eventsOfType(events, 'trajectoryCheckpoint');
}

// Every test starts without the environment variable; the ones that need it set it themselves.
let savedEnv: string | undefined;
beforeEach(() => {
  savedEnv = process.env[ENV_VAR];
  delete process.env[ENV_VAR];
});
afterEach(() => {
  if (savedEnv === undefined) delete process.env[ENV_VAR];
  else process.env[ENV_VAR] = savedEnv;
});

describe('the reference failure: changed-payload full rewrites of an existing file', () => {
  it('turns recovery_required with a fresh-read next action and a do-not-repeat line; the model reads, edits, and the run completes', async () => {
    const { model, tools, run } = await referenceRun({ checkpoint: 'adaptive' });

    expect(run.value).toEqual({ done: true });
    expect(model.requests).toHaveLength(5);
    expect(tools.executed).toEqual(['file_write pal.cpp', 'file_write pal.cpp', 'file_read pal.cpp', 'file_edit pal.cpp']);
    expect(tools.files.get('pal.cpp')).toBe('int main() { return 1; }');
    // Both rewrites came back to the model as errors.
    for (const i of [1, 2]) {
      const [result] = toolResultsOf(model.requests[i]);
      expect(result?.is_error).toBe(sentErrorFlag(true));
      expect(resultText(result)).toContain('pal.cpp exists');
    }

    // No tool has run before the first request: nothing to ground, nothing injected.
    expect(checkpointOf(model.requests[0])).toBeUndefined();

    // After one rejected rewrite: already recovery, "do not repeat the same input".
    const afterOne = checkpointOf(model.requests[1]);
    expect(lineOf(afterOne, 'Assessment: ')).toBe('Assessment: recovery_required');
    expect(lineOf(afterOne, 'Do not repeat: ')).toBe('Do not repeat: file_write on pal.cpp with the same input [turn 1/tool_failure].');

    // After the second rejected rewrite with a changed payload: the seed's checkpoint.
    const afterTwo = checkpointOf(model.requests[2]);
    const lines = (afterTwo ?? '').split('\n');
    expect(lines[0]).toBe(HEADING);
    expect(lines).toContain(`Goal: ${GOAL}`);
    expect(lines).toContain('Assessment: recovery_required');
    expect(lines).toContain('Open question: The current content of pal.cpp has not been freshly read.');
    expect(lineOf(afterTwo, 'Required next action: ')).toMatch(/^Required next action: Read pal\.cpp fresh, then make a targeted change/);
    expect(lineOf(afterTwo, 'Success evidence: ')).toContain('pal.cpp');
    expect(linesStarting(afterTwo, 'Do not repeat: ')).toEqual([
      'Do not repeat: file_write on pal.cpp with another changed payload [turn 2/tool_failure].',
    ]);
    // Every fact points at its evidence; nothing failed is claimed as completed work.
    const facts = linesStarting(afterTwo, '- ');
    expect(facts).toHaveLength(2);
    expect(facts[0]).toMatch(/^- \[turn 1\/tool_failure\] file_write on pal\.cpp: /);
    expect(facts[1]).toMatch(/^- \[turn 2\/tool_failure\] file_write on pal\.cpp: /);
    expect(lines).not.toContain('Completed work:');
    expect(lines.at(-1)).toBe(FOOTER);

    // The fresh read satisfies the prerequisite: no recovery, no do-not-repeat any more.
    const afterRead = checkpointOf(model.requests[3]);
    expect(lineOf(afterRead, 'Assessment: ')).toBe('Assessment: on_trajectory');
    expect(linesStarting(afterRead, 'Do not repeat: ')).toEqual([]);
    expect(linesStarting(afterRead, 'Open question: ')).toEqual([]);
    expect(afterRead).toContain(`- [turn 3/tool_result] file_read on pal.cpp: ${ORIGINAL}`);

    // The targeted edit is completed work with evidence, and makes verification due.
    const afterEdit = checkpointOf(model.requests[4]);
    expect(lineOf(afterEdit, 'Assessment: ')).toBe('Assessment: verification_due');
    expect(afterEdit).toContain('Completed work:\n- file_edit on pal.cpp [turn 4/tool_result]');
    expect(lineOf(afterEdit, 'Required next action: ')).toBe('Required next action: Run the verifier for pal.cpp.');

    expect(run.checkpoints.map((e) => [e.revision, e.assessment])).toEqual([
      [1, 'recovery_required'],
      [2, 'recovery_required'],
      [3, 'on_trajectory'],
      [4, 'verification_due'],
    ]);
  });

  it('the block sent is the rendering of the checkpoint the event carries', async () => {
    const { model, run } = await referenceRun({ checkpoint: 'adaptive' });
    expect(run.checkpoints).toHaveLength(4);
    run.checkpoints.forEach((event, i) => {
      expect(event.injected).toBe(true);
      expect(checkpointOf(model.requests[i + 1])).toBe(renderCheckpoint(event.checkpoint, DEFAULT_CHECKPOINT_CHARS));
    });
  });
});

describe('one checkpoint per request, last, never accumulating', () => {
  for (const mode of ['adaptive', 'always'] as const) {
    it(`${mode}: every request after the first tool call has exactly one checkpoint, as the last block after [identity, why]`, async () => {
      const { model } = await referenceRun({ checkpoint: mode });
      const [first, ...rest] = model.requests;

      // The first request: the identity and the goal ancestry (with cache_control), no checkpoint.
      const base = systemBlocks(first);
      expect(base).toEqual(
        providerPath
          ? // One system message, without cache breakpoints (Chat Completions has none).
            [{ type: 'text', text: expect.stringMatching(new RegExp(`^${SYSTEM}\n\n[\\s\\S]*Goal: ${GOAL}`)) }]
          : [
              { type: 'text', text: SYSTEM },
              { type: 'text', text: expect.stringContaining(`Goal: ${GOAL}`), cache_control: EPHEMERAL },
            ],
      );
      expect(occurrences(rawBodyOf(first), HEADING)).toBe(0);

      const seen: string[] = [];
      for (const request of rest) {
        const blocks = systemBlocks(request);
        // The cached sections are byte-for-byte those of the first request, cache_control kept.
        expect(blocks.slice(0, -1)).toEqual(base);
        const last = blocks.at(-1);
        expect(last?.text.startsWith(`${HEADING}\n`)).toBe(true);
        expect(last && 'cache_control' in last).toBe(false);
        expect(checkpointBlocks(request)).toHaveLength(1);
        // Not in the messages either: exactly one heading in the whole body.
        expect(occurrences(rawBodyOf(request), HEADING)).toBe(1);
        seen.push(last?.text ?? '');
      }
      // Each request carries the current checkpoint, not the earlier ones.
      expect(new Set(seen).size).toBe(seen.length);
      const lastBody = rawBodyOf(model.requests.at(-1));
      expect(lastBody).not.toContain('recovery_required');
      expect(lastBody).not.toContain('Do not repeat: ');
    });
  }

  it('a plain-string system becomes [identity, checkpoint]; an agent without a system sends [checkpoint]', async () => {
    const withSystem = await harness(referenceScript(), { trajectory: { checkpoint: 'adaptive' } });
    const without = await harness(referenceScript(), { trajectory: { checkpoint: 'adaptive' }, system: undefined });
    // Outside a workflow: no goal ancestry, so the prompt's request stands in for the goal.
    await withSystem.agent.prompt(fixPrompt());
    await without.agent.prompt(fixPrompt());
    withSystem.model.assertComplete();
    without.model.assertComplete();

    expect(systemText(withSystem.model.requests[0]?.body ?? {})).toBe(SYSTEM);
    expect('system' in (without.model.requests[0]?.body ?? {})).toBe(false);
    for (let i = 1; i < 5; i += 1) {
      const a = systemBlocks(withSystem.model.requests[i]);
      expect(a).toHaveLength(2);
      expect(a[0]).toEqual({ type: 'text', text: SYSTEM });
      expect(a[1]?.text.startsWith(HEADING)).toBe(true);
      const b = systemBlocks(without.model.requests[i]);
      expect(b).toHaveLength(1);
      expect(b[0]?.text).toBe(a[1]?.text);
    }
    expect(lineOf(checkpointOf(withSystem.model.requests[2]), 'Goal: ')).toBe('Goal: Fix pal.cpp');
  });

  it('an SDK retry of a request resends the same single checkpoint, and no second event', async () => {
    const { model, agent } = await harness(
      [toolUse('file_read', { path: 'pal.cpp' }), httpError(529), json({ done: true })],
      { trajectory: { checkpoint: 'always' } },
    );
    const run = await runInGoal(() => agent.prompt(fixPrompt()));
    model.assertComplete();
    expect(model.requests).toHaveLength(3);
    expect(rawBodyOf(model.requests[2])).toBe(rawBodyOf(model.requests[1]));
    expect(checkpointBlocks(model.requests[2])).toHaveLength(1);
    expect(run.checkpoints).toHaveLength(1);
  });
});

/** A read, a schema mismatch, the reflector's revision, the retry's answer: the retry re-asks with no new tool call. */
function readThenReflect(first: MessageStep = toolUse('file_read', { path: 'pal.cpp' })): MessageStep[] {
  return [
    first,
    json({ done: 'yes' }),
    json({ critique: 'done must be a boolean.', revisedUser: null, guidance: 'Answer done as true or false.' }),
    json({ done: true }),
  ];
}

describe('trajectoryCheckpoint events', () => {
  it('come only when the content changes, with revisions rising by one and one checkpoint id', async () => {
    const { run } = await referenceRun({ checkpoint: 'adaptive' });
    const events = run.checkpoints;
    expect(events.map((e) => e.revision)).toEqual([1, 2, 3, 4]);
    const ids = new Set(events.map((e) => e.checkpoint.id));
    expect(ids.size).toBe(1);
    for (const event of events) {
      expect(event.agentName).toBe('coder');
      expect(event.nodeId).toBe(run.promptNode.id);
      expect(event.assessment).toBe(event.checkpoint.assessment);
      expect(event.revision).toBe(event.checkpoint.revision);
      expect(event.checkpoint.schemaVersion).toBe(1);
      expect(event.checkpoint.goal).toBe(GOAL);
      expect(event.checkpoint.groundingSource).toBe('deterministic');
      for (const fact of event.checkpoint.groundedFacts) expect(fact.evidence).toMatch(LABEL);
      for (const work of event.checkpoint.completedWork) expect(work).toMatch(LABEL);
    }
    // The events sit on the agent call's node.
    expect(checkpointEventsOf(run.promptNode.events).map((e) => e.revision)).toEqual([1, 2, 3, 4]);
  });

  it('an unchanged checkpoint (a reflection retry with no new tool call) emits no event; adaptive leaves an on-trajectory one out', async () => {
    const { model, agent } = await harness(readThenReflect(), { trajectory: { checkpoint: 'adaptive' }, enableReflection: true });
    const run = await runInGoal(() => agent.prompt(fixPrompt()));
    model.assertComplete();
    expect(run.value).toEqual({ done: true });
    expect(model.requests).toHaveLength(4);
    expect(run.checkpoints.map((e) => [e.revision, e.assessment])).toEqual([[1, 'on_trajectory']]);
    expect(checkpointOf(model.requests[1])).toBeDefined();
    // requests[2] is the reflector's own call: no tools, no checkpoint.
    expect(checkpointOf(model.requests[2])).toBeUndefined();
    // The retry: same observations, same fingerprint, nothing new to say.
    expect(checkpointOf(model.requests[3])).toBeUndefined();
  });

  it('adaptive keeps injecting an unchanged checkpoint that is not on trajectory, without a new event', async () => {
    const { model, agent } = await harness(readThenReflect(toolUse('file_write', { path: 'pal.cpp', content: 'x' })), {
      trajectory: { checkpoint: 'adaptive' },
      enableReflection: true,
    });
    const run = await runInGoal(() => agent.prompt(fixPrompt()));
    model.assertComplete();
    expect(run.checkpoints.map((e) => [e.revision, e.assessment])).toEqual([[1, 'recovery_required']]);
    expect(checkpointOf(model.requests[3])).toBe(checkpointOf(model.requests[1]));
    expect(checkpointBlocks(model.requests[3])).toHaveLength(1);
    expect(systemBlocks(model.requests[3]).at(-1)?.text).toBe(checkpointOf(model.requests[1]));
  });

  it('the tree string shows only the latest checkpoint line of the agent call, under its node', async () => {
    const { run } = await referenceRun({ checkpoint: 'adaptive' });
    const tree = new WorkflowTreeDebugger(run.workflow).toTreeString();
    const lines = tree.split('\n');
    const checkpointLines = lines.filter((line) => /checkpoint r\d+ /.test(line));
    expect(checkpointLines).toHaveLength(1);
    expect(checkpointLines[0]).toMatch(/│ {2}checkpoint r4 verification_due → Run the verifier for pal\.cpp\.$/);
    const promptLine = lines.findIndex((line) => line.includes('coder: fix [agentPrompt]'));
    const checkpointLine = lines.findIndex((line) => line.includes('checkpoint r4'));
    const firstTool = lines.findIndex((line) => line.includes('[toolCall]'));
    expect(promptLine).toBeGreaterThanOrEqual(0);
    expect(checkpointLine).toBeGreaterThan(promptLine);
    expect(checkpointLine).toBeLessThan(firstTool);
  });

  it('the run export keeps the last checkpoint event, and the tree loaded from it agrees', async () => {
    const { run } = await referenceRun({ checkpoint: 'adaptive' });
    const text = JSON.stringify(exportRun(run.workflow.node));
    const exported = parseRunExport(text);
    const stack: SerializedNode[] = [exported.root];
    let promptNode: SerializedNode | undefined;
    while (stack.length > 0 && promptNode === undefined) {
      const node = stack.shift() as SerializedNode;
      if (node.kind === 'agentPrompt') promptNode = node;
      stack.push(...node.children);
    }
    const kept = checkpointEventsOf(promptNode?.events ?? []);
    const last = run.checkpoints.at(-1);
    expect(kept.at(-1)?.revision).toBe(4);
    expect(kept.at(-1)?.assessment).toBe('verification_due');
    expect(kept.at(-1)?.checkpoint).toEqual(last?.checkpoint);

    const live = new WorkflowTreeDebugger(run.workflow).toTreeString().split('\n').filter((l) => l.includes('checkpoint r'));
    const loaded = WorkflowTreeDebugger.fromJSON(text).toTreeString().split('\n').filter((l) => l.includes('checkpoint r'));
    expect(loaded).toEqual(live);
  });
});

describe('modes', () => {
  it('off, by default and explicitly, leaves every request byte-identical to an agent without the option, with no events', async () => {
    const plain = await referenceRun();
    const explicit = await referenceRun({ checkpoint: 'off' });
    const onlyCap = await referenceRun({ maxChars: 500 });
    const reference = bodies(plain.model.requests);
    expect(reference).toHaveLength(5);
    expect(bodies(explicit.model.requests)).toEqual(reference);
    expect(bodies(onlyCap.model.requests)).toEqual(reference);
    for (const body of reference) expect(body).not.toContain(HEADING);
    for (const r of [plain, explicit, onlyCap]) {
      expect(r.run.checkpoints).toEqual([]);
      expect(new WorkflowTreeDebugger(r.run.workflow).toTreeString()).not.toContain('checkpoint r');
    }
  });

  it('shadow emits the events but injects nothing: the requests are those of off', async () => {
    const off = await referenceRun({ checkpoint: 'off' });
    const shadow = await referenceRun({ checkpoint: 'shadow' });
    expect(bodies(shadow.model.requests)).toEqual(bodies(off.model.requests));
    expect(shadow.run.checkpoints.map((e) => [e.revision, e.assessment, e.injected])).toEqual([
      [1, 'recovery_required', false],
      [2, 'recovery_required', false],
      [3, 'on_trajectory', false],
      [4, 'verification_due', false],
    ]);
    expect(new WorkflowTreeDebugger(shadow.run.workflow).toTreeString()).toContain('checkpoint r4 verification_due');
  });

  it('always injects on every request after the first tool call, also when unchanged', async () => {
    const { model, agent } = await harness(readThenReflect(), { trajectory: { checkpoint: 'always' }, enableReflection: true });
    const run = await runInGoal(() => agent.prompt(fixPrompt()));
    model.assertComplete();
    expect(run.checkpoints.map((e) => [e.revision, e.assessment, e.injected])).toEqual([[1, 'on_trajectory', true]]);
    expect(checkpointOf(model.requests[0])).toBeUndefined();
    const injected = checkpointOf(model.requests[1]);
    expect(lineOf(injected, 'Assessment: ')).toBe('Assessment: on_trajectory');
    // The retry (after the reflector's own request) carries the same, unchanged checkpoint, last.
    expect(systemBlocks(model.requests[3]).at(-1)?.text).toBe(injected);
    expect(checkpointBlocks(model.requests[3])).toHaveLength(1);
  });

  it(`${ENV_VAR}=shadow applies when the config is silent (also when only maxChars is set)`, async () => {
    const off = await referenceRun({ checkpoint: 'off' });
    await withEnv(ENV_VAR, 'shadow', async () => {
      for (const trajectory of [undefined, { maxChars: 900 }]) {
        const fromEnv = await referenceRun(trajectory);
        expect(bodies(fromEnv.model.requests)).toEqual(bodies(off.model.requests));
        expect(fromEnv.run.checkpoints.map((e) => [e.revision, e.injected])).toEqual([
          [1, false],
          [2, false],
          [3, false],
          [4, false],
        ]);
      }
    });
    expect(process.env[ENV_VAR]).toBeUndefined();
  });

  it('the config wins over the environment variable', async () => {
    const off = await referenceRun({ checkpoint: 'off' });
    await withEnv(ENV_VAR, 'shadow', async () => {
      const always = await referenceRun({ checkpoint: 'always' });
      expect(checkpointOf(always.model.requests[2])).toContain('Assessment: recovery_required');
      expect(always.run.checkpoints.every((e) => e.injected)).toBe(true);
    });
    await withEnv(ENV_VAR, 'always', async () => {
      const explicitOff = await referenceRun({ checkpoint: 'off' });
      expect(bodies(explicitOff.model.requests)).toEqual(bodies(off.model.requests));
      expect(explicitOff.run.checkpoints).toEqual([]);
    });
  });

  it('an invalid mode is a UsageError at createAgent, from the config or from the environment', async () => {
    const model = new ScriptedModel([]);
    const bad: unknown = 'sometimes';
    const config = (trajectory: Trajectory): AgentConfig => ({ name: 'coder', client: model.client(), trajectory });
    expect(() => createAgent(config({ checkpoint: bad as Trajectory['checkpoint'] }))).toThrow(UsageError);
    expect(() => createAgent(config({ checkpoint: bad as Trajectory['checkpoint'] }))).toThrow(/off, shadow, adaptive, always/);
    await withEnv(ENV_VAR, 'sometimes', () => {
      expect(() => createAgent({ name: 'coder', client: model.client() })).toThrow(UsageError);
      // An explicit mode in the config is not overridden, so the bad variable is not consulted.
      expect(() => createAgent(config({ checkpoint: 'off' }))).not.toThrow();
    });
    expect(model.requests).toEqual([]);
  });
});

const MEGABYTE = 1_000_000;

/** A read tool with an effect and a target whose output the test chooses. */
function readTool(name: string, output: (path: string) => string) {
  return defineTool({
    name,
    description: `Reads ${name}.`,
    effect: 'read',
    target: (input) => input.path,
    input: z.object({ path: z.string() }),
    execute: ({ path }) => output(path),
  });
}

describe('bounded and sanitised', () => {
  it('a 1 MB tool output: the rendering stays under the default cap, the summary is short, the event is small', async () => {
    const log = readTool('fetch_log', () => 'GET /index.html 200 12ms\n'.repeat(Math.ceil(MEGABYTE / 25)).slice(0, MEGABYTE));
    const model = new ScriptedModel([toolUse('fetch_log', { path: 'access.log' }), json({ done: true })]);
    const agent = createAgent({ name: 'coder', ...(await agentModel(model)), tools: [log], trajectory: { checkpoint: 'adaptive' } });
    const run = await runInGoal(() => agent.prompt(fixPrompt()));
    model.assertComplete();

    // The model still gets the whole output as the tool result.
    expect(resultText(toolResultsOf(model.requests[1])[0]).length).toBe(MEGABYTE);
    const block = checkpointOf(model.requests[1]) ?? '';
    expect(block.length).toBeLessThanOrEqual(DEFAULT_CHECKPOINT_CHARS);
    expect(block.length).toBeLessThan(1_000);
    const [event] = run.checkpoints;
    const fact = event?.checkpoint.groundedFacts[0];
    expect(fact?.evidence).toBe('[turn 1/tool_result]');
    expect(fact?.statement.startsWith('fetch_log on access.log: GET /index.html 200 12ms')).toBe(true);
    expect(fact?.statement.length).toBeLessThanOrEqual(250);
    expect(JSON.stringify(event).length).toBeLessThan(4_000);
  });

  it('many huge outputs and a failing rewrite: capped at maxChars, dropping facts, keeping assessment, action, do-not-repeat and footer', async () => {
    const huge = readTool('file_read', (path) => `${path}: ${'word '.repeat(40_000)}`);
    const tools = fileTools();
    const script: MessageStep[] = [];
    for (let i = 1; i <= 6; i += 1) script.push(toolUse('file_read', { path: `src/module-${i}-with-a-rather-long-name.cpp` }));
    script.push(toolUse('file_write', { path: 'pal.cpp', content: 'v1' }), toolUse('file_write', { path: 'pal.cpp', content: 'v2' }), json({ done: false }));
    for (const maxChars of [DEFAULT_CHECKPOINT_CHARS, 900]) {
      const model = new ScriptedModel(script);
      const agent = createAgent({
        name: 'coder',
        ...(await agentModel(model)),
        tools: [huge, tools.fileWrite],
        trajectory: { checkpoint: 'adaptive', ...(maxChars === DEFAULT_CHECKPOINT_CHARS ? {} : { maxChars }) },
      });
      await runInGoal(() => agent.prompt(fixPrompt()));
      model.assertComplete();
      for (const request of model.requests.slice(1)) {
        expect((checkpointOf(request) ?? '').length).toBeLessThanOrEqual(maxChars);
      }
      const last = checkpointOf(model.requests.at(-1)) ?? '';
      expect(last.startsWith(`${HEADING}\n`)).toBe(true);
      expect(lineOf(last, 'Assessment: ')).toBe('Assessment: recovery_required');
      expect(lineOf(last, 'Required next action: ')).toContain('Read pal.cpp fresh');
      expect(lineOf(last, 'Do not repeat: ')).toContain('file_write on pal.cpp with another changed payload');
      expect(last.endsWith(FOOTER)).toBe(true);
    }
  });

  it('binary content is described, not copied', async () => {
    const png = `\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR\u0000\u0000\u0001\u0000${'\u0000\u0007\u0003'.repeat(200)}IEND`;
    const image = readTool('read_image', () => png);
    const model = new ScriptedModel([toolUse('read_image', { path: 'logo.png' }), json({ done: true })]);
    const agent = createAgent({ name: 'coder', ...(await agentModel(model)), tools: [image], trajectory: { checkpoint: 'adaptive' } });
    const run = await runInGoal(() => agent.prompt(fixPrompt()));
    model.assertComplete();

    const block = checkpointOf(model.requests[1]) ?? '';
    expect(block).toContain(`read_image on logo.png: <binary content, ${png.length} chars>`);
    expect(block).not.toContain('IHDR');
    expect(block).not.toContain('PNG');
    // eslint-disable-next-line no-control-regex
    expect(/[\u0000-\u0008\u000b-\u001f\u007f]/.test(block)).toBe(false);
    const statement = run.checkpoints[0]?.checkpoint.groundedFacts[0]?.statement ?? '';
    expect(statement).toBe(`read_image on logo.png: <binary content, ${png.length} chars>`);
  });

  describe('a value of an @ObservedState({ redact: true }) field', () => {
    const SECRET = 'sk-live-SUPERSECRET-4242';
    const PEM = '-----BEGIN KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcN\n-----END KEY-----';

    /** A workflow holding `secret` in a redacted field, whose run asks the agent once. */
    async function runWithSecret(secret: string, agentConfig: { tools: AgentConfig['tools']; script: MessageStep[]; user?: string; goal?: string }) {
      const model = new ScriptedModel(agentConfig.script);
      const agent = createAgent({ name: 'coder', ...(await agentModel(model)), tools: agentConfig.tools, trajectory: { checkpoint: 'adaptive' } });
      class Deploy extends Workflow<{ done: boolean }> {
        @ObservedState({ redact: true }) apiToken = secret;
        override async run(): Promise<{ done: boolean }> {
          return agent.prompt(fixPrompt(agentConfig.user));
        }
      }
      const deploy = new Deploy({ name: 'deploy', ...(agentConfig.goal !== undefined ? { goal: agentConfig.goal } : {}) });
      const events: WorkflowEvent[] = [];
      deploy.addObserver({ onEvent: (event) => void events.push(event) });
      await deploy.run();
      model.assertComplete();
      const checkpoints = checkpointEventsOf(events);
      const blocks = model.requests.map((request) => checkpointOf(request) ?? '').join('\n');
      const tree = new WorkflowTreeDebugger(deploy).toTreeString();
      return { model, checkpoints, blocks, eventsText: JSON.stringify(checkpoints), tree };
    }

    it('in a tool output or a tool target is masked in the rendering and in the events', async () => {
      const config = readTool('read_config', (path) => `path=${path}\ntoken = ${SECRET}\nregion = eu-west-1`);
      const r = await runWithSecret(SECRET, {
        tools: [config],
        goal: 'Deploy the service',
        script: [toolUse('read_config', { path: 'app.env' }), toolUse('read_config', { path: `vault/${SECRET}.env` }), json({ done: true })],
      });
      expect(r.checkpoints.length).toBeGreaterThan(0);
      expect(r.blocks).toContain('token = ***');
      expect(r.blocks).toContain('read_config on vault/***.env');
      expect(r.blocks).not.toContain(SECRET);
      expect(r.eventsText).not.toContain(SECRET);
      expect(r.tree.split('\n').filter((l) => l.includes('checkpoint r')).join('\n')).not.toContain(SECRET);
    });

    it('failing tool output quoting the secret is masked too', async () => {
      const failing = defineTool({
        name: 'deploy_service',
        description: 'Deploys.',
        effect: 'mutate',
        target: () => 'service',
        input: z.object({}),
        execute: () => {
          throw new Error(`401 Unauthorized for token ${SECRET}`);
        },
      });
      const r = await runWithSecret(SECRET, { tools: [failing], goal: 'Deploy the service', script: [toolUse('deploy_service', {}), json({ done: false })] });
      expect(r.blocks).toContain('401 Unauthorized for token ***');
      expect(r.blocks).not.toContain(SECRET);
      expect(r.eventsText).not.toContain(SECRET);
    });

    it('a multi-line secret in a tool output is masked before line breaks are flattened', async () => {
      const keyFile = readTool('read_key', () => `key:\n${PEM}\n`);
      const r = await runWithSecret(PEM, { tools: [keyFile], goal: 'Sign the release', script: [toolUse('read_key', { path: 'key.pem' }), json({ done: true })] });
      for (const line of PEM.split('\n')) {
        expect(r.blocks).not.toContain(line);
        expect(r.eventsText).not.toContain(line);
      }
    });

    it('quoted in the prompt (no declared goal) does not reach the checkpoint event', async () => {
      const r = await runWithSecret(SECRET, {
        tools: [readTool('read_config', () => 'ok')],
        user: `Deploy with token ${SECRET}`,
        script: [toolUse('read_config', { path: 'app.env' }), json({ done: true })],
      });
      expect(r.checkpoints.length).toBeGreaterThan(0);
      expect(r.eventsText).not.toContain(SECRET);
      expect(r.blocks).not.toContain(SECRET);
    });
  });

  it('a huge prompt without a declared goal keeps the event bounded', async () => {
    const user = `Summarise this document:\n${'lorem ipsum '.repeat(MEGABYTE / 12)}`;
    const model = new ScriptedModel([toolUse('file_read', { path: 'pal.cpp' }), json({ done: true })]);
    const agent = createAgent({ name: 'coder', ...(await agentModel(model)), tools: fileTools().all, trajectory: { checkpoint: 'adaptive' } });
    const events: CheckpointEvent[] = [];
    const run = await runInGoal(() => agent.prompt(fixPrompt(user)), '');
    events.push(...run.checkpoints);
    model.assertComplete();
    expect((checkpointOf(model.requests[1]) ?? '').length).toBeLessThanOrEqual(DEFAULT_CHECKPOINT_CHARS);
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events[0]).length).toBeLessThan(10_000);
  });
});

describe('a hook that keeps refusing a mutation', () => {
  const refuseRewrites: AgentHooks = {
    preToolUse: (context) =>
      context.toolName === 'file_write' ? { block: true, reason: 'full rewrites of existing files are not allowed' } : undefined,
  };

  it('three refusals of the same input: blocked, stop calling it', async () => {
    const same = { path: 'pal.cpp', content: 'int main() { return 1; }' };
    const { model, agent, tools } = await harness(
      [toolUse('file_write', same), toolUse('file_write', same), toolUse('file_write', same), json({ done: false })],
      { trajectory: { checkpoint: 'adaptive' }, hooks: refuseRewrites },
    );
    const run = await runInGoal(() => agent.prompt(fixPrompt()));
    model.assertComplete();
    expect(run.value).toEqual({ done: false });
    expect(tools.executed).toEqual([]);

    expect(run.checkpoints.map((e) => [e.revision, e.assessment])).toEqual([
      [1, 'recovery_required'],
      [2, 'recovery_required'],
      [3, 'blocked'],
    ]);
    const block = checkpointOf(model.requests[3]);
    expect(lineOf(block, 'Assessment: ')).toBe('Assessment: blocked');
    expect(lineOf(block, 'Required next action: ')).toBe(
      'Required next action: Stop calling file_write; report what blocks it or choose a different approach.',
    );
    expect(linesStarting(block, 'Do not repeat: ')).toContain('Do not repeat: file_write on pal.cpp with the same input [turn 3/synthetic_block].');
    expect(block).toContain('- [turn 1/synthetic_block] file_write on pal.cpp: The call was refused: full rewrites of existing files are not allowed');
    expect(new WorkflowTreeDebugger(run.workflow).toTreeString()).toMatch(/checkpoint r3 blocked → Stop calling file_write/);
  });

  it('three refusals with changed payloads stay recovery_required (a fresh read is the way out), not blocked', async () => {
    const { model, agent } = await harness(
      [1, 2, 3].map((n) => toolUse('file_write', { path: 'pal.cpp', content: `v${n}` })).concat([json({ done: false })]),
      { trajectory: { checkpoint: 'adaptive' }, hooks: refuseRewrites },
    );
    const run = await runInGoal(() => agent.prompt(fixPrompt()));
    model.assertComplete();
    expect(run.checkpoints.map((e) => e.assessment)).toEqual(['recovery_required', 'recovery_required', 'recovery_required']);
    const block = checkpointOf(model.requests[3]);
    expect(lineOf(block, 'Required next action: ')).toContain('Read pal.cpp fresh');
    expect(lineOf(block, 'Do not repeat: ')).toBe('Do not repeat: file_write on pal.cpp with another changed payload [turn 3/synthetic_block].');
  });
});
