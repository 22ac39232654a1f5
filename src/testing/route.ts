import { UsageError } from '../errors/groundswell-error.js';
import { callingAgent } from './calling-agent.js';
import { userText } from './prompt-parts.js';
import type { RecordedRequest } from './recorded-request.js';
import type { Responder, ScriptStep } from './script-step.js';

/** What a route answers with: a fixed step, or a responder deciding from the request. */
export type RouteTarget = ScriptStep | Responder;

export interface RouteTable {
  /**
   * Keyed by text the agent's system prompt starts with (see `callingAgent`): agents sharing one
   * scripted model are told apart by their `system`, since the agent's name is not sent.
   */
  byAgent?: Readonly<Record<string, RouteTarget>>;
  /** Keyed by text the prompt's `user` text starts with (see `userText`). */
  byPrompt?: Readonly<Record<string, RouteTarget>>;
  /** For requests no key matches. Without it such a request is a script failure naming it. */
  fallback?: RouteTarget;
}

/**
 * A responder that answers each request by who sent it and what it asks, never by arrival order,
 * so concurrent agent calls (a fan-out whose requests interleave) get the right answers. Agent
 * routes are tried first, then prompt routes, then the fallback; within a table the longest
 * matching key wins, so `'You review'` and `'You review code'` can coexist.
 */
export function route(table: RouteTable): Responder {
  const byAgent = entries(table.byAgent, 'byAgent');
  const byPrompt = entries(table.byPrompt, 'byPrompt');
  if (byAgent.length === 0 && byPrompt.length === 0 && table.fallback === undefined) {
    throw new UsageError('route(): give at least one of byAgent, byPrompt or fallback');
  }
  return (request, index) => {
    const target =
      longestMatch(byAgent, callingAgent(request)) ?? longestMatch(byPrompt, userText(request)) ?? table.fallback;
    if (target === undefined) throw new Error(unrouted(request));
    return typeof target === 'function' ? target(request, index) : target;
  };
}

function entries(
  table: Readonly<Record<string, RouteTarget>> | undefined,
  field: string,
): ReadonlyArray<readonly [string, RouteTarget]> {
  const list = Object.entries(table ?? {});
  for (const [key] of list) {
    // An empty key would match every request and hide the tables after it.
    if (key === '') throw new UsageError(`route(): ${field} has an empty key; use fallback to answer every request`);
  }
  return list.sort(([a], [b]) => b.length - a.length);
}

function longestMatch(
  list: ReadonlyArray<readonly [string, RouteTarget]>,
  subject: string | undefined,
): RouteTarget | undefined {
  if (subject === undefined) return undefined;
  return list.find(([key]) => subject.startsWith(key))?.[1];
}

function unrouted(request: RecordedRequest): string {
  const agent = callingAgent(request);
  return (
    `no route for agent ${agent === undefined ? '(no system prompt)' : JSON.stringify(preview(agent))}, ` +
    `prompt ${JSON.stringify(preview(userText(request)))}`
  );
}

function preview(text: string): string {
  return text.length > 50 ? `${text.slice(0, 49)}…` : text;
}
