import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { expect } from 'vitest';
import type { WorkflowNode } from 'groundswell';
import type { ScriptedModel } from 'groundswell/testing';
import { resultText, toolResultsOf } from '../support/agent-helpers.js';
import { must } from '../support/core-helpers.js';

/** A tool's answer as the agent sent it back: the tool_result blocks of request `index`. */
export function sentResults(model: ScriptedModel, index: number): ToolResultBlockParam[] {
  return toolResultsOf(must(model.requests[index], `request #${index + 1}`));
}

/** The one tool_result of request `index`, checked to be a success, parsed as JSON. */
export function sentAnswer(model: ScriptedModel, index: number): Record<string, unknown> {
  const results = sentResults(model, index);
  expect(results).toHaveLength(1);
  const [block] = results;
  expect(block?.is_error, resultText(block)).toBe(false);
  return JSON.parse(resultText(block)) as Record<string, unknown>;
}

/** The one tool_result of request `index`, checked to be an error; its text. */
export function sentError(model: ScriptedModel, index: number): string {
  const results = sentResults(model, index);
  expect(results).toHaveLength(1);
  const [block] = results;
  expect(block?.is_error, resultText(block)).toBe(true);
  return resultText(block);
}

/** The child of `parent` with this kind and name. */
export function child(parent: WorkflowNode, kind: WorkflowNode['kind'], name?: string): WorkflowNode {
  return must(
    parent.children.find((c) => c.kind === kind && (name === undefined || c.name === name)),
    `${kind}${name === undefined ? '' : ` "${name}"`} under "${parent.name}"`,
  );
}

/** Reads a nested field of parsed JSON without casts at every level. */
export function field(value: unknown, ...path: Array<string | number>): unknown {
  let current: unknown = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}
