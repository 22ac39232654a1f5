import type { Cache, CacheMetrics } from '../cache/cache.js';
import type { CacheMissReason } from '../types/cache.js';
import type { WorkflowNode } from '../types/node.js';
import { errorMessage } from '../util/describe.js';
import { walkTree } from '../util/tree-walk.js';
import type { Caller } from './caller.js';

interface CacheEventCounts {
  hits: number;
  misses: number;
  /** Per agent name, for the agents that had any. */
  byAgent: Record<string, { hits: number; misses: number }>;
  /** Misses by reason (absent, expired, disabled, ...), for the reasons seen. */
  missReasons: Partial<Record<CacheMissReason, number>>;
}

export interface CacheStatus {
  configured: boolean;
  /** The store's own counters (all callers of that store, not only this run). */
  metrics?: CacheMetrics;
  hitRate?: number | null;
  message?: string;
  /** `cacheHit`/`cacheMiss` events in the caller's workflow and in the whole run. */
  events: { workflow: CacheEventCounts; run: CacheEventCounts };
}

export function cacheStatus(caller: Caller, cache: Cache | undefined, unavailable: string | undefined): CacheStatus {
  const events = { workflow: countEvents(caller.workflow.node), run: countEvents(caller.root.node) };
  if (cache === undefined) {
    return {
      configured: false,
      message:
        unavailable ??
        'No cache is configured for these tools (introspectionTools({ cache })), so store metrics are ' +
          'unknown; the event counts below still show hits and misses in this run.',
      events,
    };
  }
  let metrics: CacheMetrics;
  try {
    metrics = cache.metrics();
  } catch (error) {
    // A custom store whose metrics fail must not cost the model the event counts.
    return { configured: true, message: `The cache store could not report metrics: ${errorMessage(error)}`, events };
  }
  const lookups = metrics.hits + metrics.misses;
  return { configured: true, metrics: { ...metrics }, hitRate: lookups === 0 ? null : metrics.hits / lookups, events };
}

function countEvents(root: WorkflowNode): CacheEventCounts {
  let hits = 0;
  let misses = 0;
  // A Map, not an object literal: an agent may be named anything, `__proto__` included.
  const byAgent = new Map<string, { hits: number; misses: number }>();
  const missReasons: Partial<Record<CacheMissReason, number>> = {};
  for (const node of walkTree<WorkflowNode>(root)) {
    for (const event of node.events) {
      if (event.type !== 'cacheHit' && event.type !== 'cacheMiss') continue;
      let agent = byAgent.get(event.agentName);
      if (agent === undefined) byAgent.set(event.agentName, (agent = { hits: 0, misses: 0 }));
      if (event.type === 'cacheHit') {
        hits += 1;
        agent.hits += 1;
      } else {
        misses += 1;
        agent.misses += 1;
        missReasons[event.reason] = (missReasons[event.reason] ?? 0) + 1;
      }
    }
  }
  return { hits, misses, byAgent: Object.fromEntries(byAgent), missReasons };
}
