import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, exportRun, isSuspension, progressDisplay, WorkflowTreeDebugger, type Workflow } from 'groundswell';
import type { RunStore } from 'groundswell/durable';
import { eachRunStore } from '../../support/run-store-kinds.js';
import { otelObserver } from 'groundswell/otel';
import { json, ScriptedModel } from 'groundswell/testing';
import { runLine } from '../../../src/cli/format-run.js';
import { memoryTracing } from '../../otel/span-helpers.js';
import { agentModelSync } from '../../support/model-path.js';

let store: RunStore;

class Terminal {
  readonly writes: string[] = [];
  readonly isTTY = false;
  write(text: string): boolean {
    this.writes.push(text);
    return true;
  }
}

function approvalRun(): Workflow<string> {
  const model = new ScriptedModel(() => json({ summary: 'ok' }));
  const writer = createAgent({ name: 'writer', ...agentModelSync(model) });
  return createWorkflow({ name: 'Release', durable: { store, runId: 'rel' } }, async (ctx) => {
    const notes = await ctx.step('draft', () => writer.prompt(createPrompt({ user: 'draft the notes', responseFormat: z.object({ summary: z.string() }) })));
    const decision = await ctx.step('approve', () => ctx.waitFor('approval', z.object({ ok: z.boolean() })));
    return decision.ok ? notes.summary : 'held';
  });
}

eachRunStore((opened) => (store = opened), () => {
  describe('a waiting run reads as waiting, not as a failure', () => {
    it('tree, tree string, export, spans, progress and the run list all say suspended', async () => {
      const wf = approvalRun();
      const tracing = memoryTracing();
      wf.addObserver(await otelObserver({ tracerProvider: tracing.provider }));
      const terminal = new Terminal();
      const progress = progressDisplay({ stream: terminal as unknown as NodeJS.WriteStream });
      const unsubscribe = wf.addObserver(progress);
      const stopped = await wf.run().catch((error: unknown) => error);
      expect(isSuspension(stopped)).toBe(true);
      progress.stop();
      unsubscribe();

      expect(wf.node.status).toBe('suspended');
      const approve = wf.node.children.find((child) => child.name === 'approve');
      expect(approve?.status).toBe('suspended');
      expect(wf.node.children.find((child) => child.name === 'draft')?.status).toBe('completed');

      const text = new WorkflowTreeDebugger(wf).toTreeString();
      expect(text).toContain('⏸');
      expect(text).not.toContain('⊘');
      expect(exportRun(wf.node).root.status).toBe('suspended');

      const spans = tracing.spans();
      const root = spans.find((span) => span.name === 'workflow Release');
      expect(root?.status.code).toBe(0); // UNSET: a wait is not an error in a tracing backend
      expect(spans.flatMap((span) => span.events.map((event) => event.name))).not.toContain('exception');
      expect(spans.some((span) => span.events.some((event) => event.name === 'groundswell.wait_started'))).toBe(true);

      expect(terminal.writes.join('')).toContain('suspended (waiting for approval)');

      const run = await store.getRun('rel');
      expect(run?.status).toBe('suspended');
      expect(run?.usage?.inputTokens).toBeGreaterThan(0);
      expect(runLine(run!)).not.toContain('- tokens');
      expect(runLine(run!)).toContain('waiting for "approval"');
    });
  });
});
