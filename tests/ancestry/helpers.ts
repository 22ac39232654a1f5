import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { createAgent, createPrompt, type Agent, type AgentConfig, type GoalAncestry, type Prompt } from 'groundswell';
import { json, ScriptedModel, type RecordedRequest } from 'groundswell/testing';

export const HEADING = "# Why You're Here";

export const Ok = z.object({ ok: z.boolean() });

/** A prompt whose user text names where it was asked, so requests can be told apart. */
export function ask(where: string): Prompt<{ ok: boolean }> {
  return createPrompt({ name: where, user: `asked at ${where}`, responseFormat: Ok });
}

/** A model that answers every request with `{ ok: true }`, and an agent talking to it. */
export function okAgent(config: Omit<AgentConfig, 'client' | 'name'> & { name?: string } = {}): { model: ScriptedModel; agent: Agent } {
  const model = new ScriptedModel(() => json({ ok: true }));
  const agent = createAgent({ name: 'helper', ...config, client: model.client() });
  return { model, agent };
}

/** The request whose user message was `ask(where)`. */
export function requestAt(model: ScriptedModel, where: string): RecordedRequest {
  const found = model.requests.filter((request) => request.firstUserText === `asked at ${where}`);
  if (found.length !== 1) throw new Error(`expected one request asked at "${where}", found ${found.length}`);
  return found[0] as RecordedRequest;
}

/** The request's `system` exactly as sent: a string, text blocks, or undefined when absent. */
export function systemOf(request: RecordedRequest): string | TextBlockParam[] | undefined {
  const system = request.body.system;
  if (system === undefined || typeof system === 'string') return system;
  return [...system];
}

/** All of the system prompt's text, blocks joined by a blank line. */
export function systemText(request: RecordedRequest): string {
  const system = systemOf(request);
  if (system === undefined) return '';
  if (typeof system === 'string') return system;
  return system.map((block) => block.text).join('\n\n');
}

/** The text of the `# Why You're Here` block, or undefined when the request has none. */
export function whyBlockOf(request: RecordedRequest): string | undefined {
  const system = systemOf(request);
  if (!Array.isArray(system)) return undefined;
  return system.find((block) => block.text.startsWith(HEADING))?.text;
}

/**
 * The levels the request's `# Why You're Here` block carries, parsed back from its lines
 * ({} when there is no block). Throws on a line that is not `Label: value`.
 */
export function ancestrySent(request: RecordedRequest): GoalAncestry {
  const why = whyBlockOf(request);
  if (why === undefined) return {};
  const [heading, ...lines] = why.split('\n');
  if (heading !== HEADING) throw new Error(`unexpected heading ${JSON.stringify(heading)}`);
  const out: GoalAncestry = {};
  const keys = { Mission: 'mission', Project: 'project', Goal: 'goal', Task: 'task' } as const;
  for (const line of lines) {
    const match = /^(Mission|Project|Goal|Task): (.+)$/.exec(line);
    if (match === null) throw new Error(`not a Label: value line: ${JSON.stringify(line)}`);
    const key = keys[match[1] as keyof typeof keys];
    if (out[key] !== undefined) throw new Error(`level ${key} appears twice in ${JSON.stringify(why)}`);
    out[key] = match[2] as string;
  }
  return out;
}

/** Every line of the text, split on every line terminator a model or a terminal may honour. */
export function linesOf(text: string): string[] {
  return text.split(/\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/);
}
