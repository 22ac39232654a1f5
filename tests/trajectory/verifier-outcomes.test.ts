import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createWorkflow, defineTool, exportRun, parseRunExport, UsageError, type Tool } from 'groundswell';
import { priorOutputs } from '../../src/introspection/prior-outputs.js';
import { json, toolUse } from 'groundswell/testing';
import { eventsOfType } from '../support/events.js';
import { checkpointOf, fileTools, fixPrompt, harness, runInGoal } from './agent-helpers.js';

const CARGO_PASS = `running 3 tests
test tests::adds ... ok
test tests::multiplies ... ok
test tests::subtracts ... ok

test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
`;
const CARGO_FAIL = `running 3 tests
test tests::adds ... FAILED

test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

error: test failed, to rerun pass \`--lib\`
`;

/** A verify tool that prints `output` (whatever `verdict` says, when given). */
function runTests(output: unknown, verdict?: (output: unknown) => 'passed' | 'failed' | 'unknown' | undefined): Tool {
  return defineTool({
    name: 'run_tests',
    description: 'Run the tests.',
    effect: 'verify',
    input: z.object({}),
    execute: () => output,
    ...(verdict !== undefined ? { verdict } : {}),
  });
}

/** Edit pal.cpp, run the tests, answer: returns the checkpoint text the model got after the tests and the run. */
async function editThenTest(tool: Tool) {
  const tools = fileTools();
  tools.all.push(tool);
  const h = await harness(
    [toolUse('file_edit', { path: 'pal.cpp', find: 'return 0', replace: 'return 1' }), toolUse('run_tests', {}), json({ done: true })],
    { trajectory: { checkpoint: 'always' } },
    tools,
  );
  const run = await runInGoal(() => h.agent.prompt(fixPrompt()));
  h.model.assertComplete();
  return { afterEdit: checkpointOf(h.model.requests[1]), afterTests: checkpointOf(h.model.requests[2]), run };
}

describe('a verifier result right after a change', () => {
  it('a passing cargo summary ("0 failed") is a pass: no "run the verifier" again', async () => {
    const { afterEdit, afterTests, run } = await editThenTest(runTests(CARGO_PASS));
    expect(afterEdit).toContain('Required next action: Run the verifier for pal.cpp.');
    expect(afterTests).toContain('Assessment: on_trajectory');
    expect(afterTests).not.toMatch(/Required next action: .*(verif|run_tests)/i);
    expect(afterTests).toContain('run_tests: verifier passed: test result: ok. 3 passed; 0 failed;');
    const invocation = eventsOfType(run.recording.events, 'toolInvocation').find((e) => e.toolName === 'run_tests');
    expect(invocation?.outcome).toBe('passed');
    expect(run.checkpoints.at(-1)?.checkpoint.groundedFacts.at(-1)?.outcome).toBe('passed');
  });

  it('a failing cargo summary asks for a fix first, not for the same run again', async () => {
    const { afterTests } = await editThenTest(runTests(CARGO_FAIL));
    expect(afterTests).toContain('Assessment: verification_due');
    expect(afterTests).toContain('Required next action: Fix what run_tests reported [turn 2/tool_result], then run it again.');
    expect(afterTests).toContain('run_tests: verifier failed: test result: FAILED. 2 passed; 1 failed;');
  });

  it('an output with no summary it can read is unknown: an open question, not a failure', async () => {
    const { afterTests, run } = await editThenTest(runTests('Done. Checked 12 files.'));
    expect(afterTests).toContain('Assessment: on_trajectory');
    expect(afterTests).toContain('Open question: The outcome of run_tests [turn 2/tool_result] is unknown');
    expect(afterTests).toContain('Required next action: Read the result of run_tests [turn 2/tool_result] and decide whether the check passed');
    expect(afterTests).toContain('run_tests: verifier outcome unknown: Done. Checked 12 files.');
    expect(afterTests).not.toContain('Run the verifier');
    // Events and the run export say the same.
    const invocation = eventsOfType(run.recording.events, 'toolInvocation').find((e) => e.toolName === 'run_tests');
    expect(invocation?.outcome).toBe('unknown');
    const exported = parseRunExport(JSON.stringify(exportRun(run.workflow.node)));
    expect(JSON.stringify(exported)).toContain('"outcome":"unknown"');
    // So does introspection's view of earlier tool results (asked from outside this agent call).
    const elsewhere = createWorkflow({ name: 'elsewhere' }, () => undefined).node;
    const prior = priorOutputs({ workflow: run.workflow, root: run.workflow, node: run.workflow.node, call: elsewhere }, 'run', 50);
    expect(prior.entries.find((entry) => entry.kind === 'toolCall' && entry.toolName === 'run_tests')).toMatchObject({ outcome: 'unknown' });
  });

  it("the tool's verdict decides: a custom runner's words read as the tool says", async () => {
    const { afterTests, run } = await editThenTest(runTests('GREEN 3/3', (output) => (output === 'GREEN 3/3' ? 'passed' : undefined)));
    expect(afterTests).toContain('Assessment: on_trajectory');
    expect(afterTests).toContain('run_tests: verifier passed: GREEN 3/3');
    expect(run.value).toEqual({ done: true });
  });

  it('a structured result declares its own outcome (a clean tsc: exit code 0, no output)', async () => {
    const { afterTests } = await editThenTest(runTests({ exitCode: 0, stdout: '', stderr: '' }));
    expect(afterTests).toContain('Assessment: on_trajectory');
    expect(afterTests).toContain('verifier passed');
  });

  it('a verifier that throws is a failure', async () => {
    const broken = defineTool({
      name: 'run_tests',
      description: 'Run the tests.',
      effect: 'verify',
      input: z.object({}),
      execute: (): string => {
        throw new Error('cargo: command not found');
      },
      verdict: () => 'passed',
    });
    const { afterTests, run } = await editThenTest(broken);
    expect(afterTests).toContain('Assessment: verification_due');
    expect(afterTests).toContain('Required next action: Fix what run_tests reported [turn 2/tool_failure], then run it again.');
    expect(eventsOfType(run.recording.events, 'toolInvocation').find((e) => e.toolName === 'run_tests')?.outcome).toBe('failed');
  });
});

describe('defineTool: the verdict option', () => {
  it('types its output from execute', () => {
    const tool = defineTool({
      name: 'check',
      description: 'Check.',
      effect: 'verify',
      input: z.object({ strict: z.boolean() }),
      execute: () => ({ code: 0, log: '' }),
      verdict: (output, input) => (output.code === 0 && input.strict ? 'passed' : 'unknown'),
    });
    expectTypeOf<Parameters<NonNullable<typeof tool.verdict>>[0]>().toEqualTypeOf<{ code: number; log: string }>();
    expect(tool.verdict?.({ code: 0, log: '' }, { strict: true })).toBe('passed');
    expect(tool.verdict?.({ code: 0, log: '' }, { strict: false })).toBe('unknown');
  });

  it('is a usage error on a tool that is not a verifier, or when it is not a function', () => {
    const base = { name: 'edit', description: 'Edit.', input: z.object({}), execute: () => 'ok' };
    expect(() => defineTool({ ...base, effect: 'mutate', verdict: () => 'passed' })).toThrow(UsageError);
    expect(() => defineTool({ ...base, effect: 'mutate', verdict: () => 'passed' })).toThrow(/effect: 'verify'/);
    expect(() => defineTool({ ...base, effect: 'verify', verdict: 'passed' as never })).toThrow(/tool.verdict must be a function/);
    expect(() => defineTool({ ...base, effect: 'check' as never })).toThrow(/tool.effect must be one of: read, mutate, verify/);
  });
});
