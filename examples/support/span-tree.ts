import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

// The gen_ai.* attributes worth a glance in a printed trace, with short labels.
const SHOWN: ReadonlyArray<readonly [string, string]> = [
  ['gen_ai.request.model', 'model'],
  ['gen_ai.usage.input_tokens', 'in'],
  ['gen_ai.usage.output_tokens', 'out'],
  ['gen_ai.response.finish_reasons', 'finish'],
  ['gen_ai.tool.name', 'tool'],
  ['groundswell.cached', 'cached'],
];

/** Ended spans as an indented tree (parent → children by start time), the way a trace UI nests them. */
export function spanTree(spans: readonly ReadableSpan[]): string {
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const children = new Map<string | undefined, ReadableSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    const key = parent !== undefined && ids.has(parent) ? parent : undefined;
    children.set(key, [...(children.get(key) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number): void => {
    const level = [...(children.get(parent) ?? [])].sort((a, b) => start(a) - start(b));
    for (const span of level) {
      const attrs = SHOWN.flatMap(([key, label]) => (span.attributes[key] === undefined ? [] : [`${label}=${String(span.attributes[key])}`]));
      const events = span.events.map((event) => event.name).filter((name) => name.startsWith('groundswell.'));
      const extra = [...attrs, ...events.map((name) => `event ${name}`)];
      lines.push(`${'  '.repeat(depth)}${span.name}${extra.length > 0 ? `  {${extra.join(', ')}}` : ''}`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
}

function start(span: ReadableSpan): number {
  return span.startTime[0] * 1e3 + span.startTime[1] / 1e6;
}
