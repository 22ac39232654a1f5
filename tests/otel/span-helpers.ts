import type { Attributes, AttributeValue } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

export interface MemoryTracing {
  readonly provider: BasicTracerProvider;
  readonly exporter: InMemorySpanExporter;
  /** Every span ended so far. */
  spans(): ReadableSpan[];
}

/** An SDK tracer provider that keeps ended spans in memory. */
export function memoryTracing(): MemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { provider, exporter, spans: () => exporter.getFinishedSpans() };
}

export function spanId(span: ReadableSpan): string {
  return span.spanContext().spanId;
}

export function parentOf(span: ReadableSpan, spans: readonly ReadableSpan[]): ReadableSpan | undefined {
  const id = span.parentSpanContext?.spanId;
  return id === undefined ? undefined : spans.find((other) => spanId(other) === id);
}

export function childrenOf(span: ReadableSpan, spans: readonly ReadableSpan[]): ReadableSpan[] {
  return spans.filter((other) => other.parentSpanContext?.spanId === spanId(span)).sort((a, b) => hrMs(a.startTime) - hrMs(b.startTime));
}

/** Spans whose parent is not among `spans` (the roots of what was exported). */
export function rootsOf(spans: readonly ReadableSpan[]): ReadableSpan[] {
  const ids = new Set(spans.map(spanId));
  return spans.filter((span) => span.parentSpanContext === undefined || !ids.has(span.parentSpanContext.spanId));
}

export function named(spans: readonly ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

export function hrMs([seconds, nanos]: readonly [number, number]): number {
  return seconds * 1_000 + nanos / 1e6;
}

export function sumAttribute(spans: readonly ReadableSpan[], key: string): number {
  return spans.reduce((total, span) => total + Number(span.attributes[key] ?? 0), 0);
}

const SHOWN = [
  'gen_ai.operation.name',
  'gen_ai.agent.name',
  'gen_ai.request.model',
  'gen_ai.tool.name',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'gen_ai.usage.cache_read.input_tokens',
  'gen_ai.usage.cache_creation.input_tokens',
  'gen_ai.response.finish_reasons',
  'groundswell.status',
  'groundswell.cost_usd',
];

/** The span tree as indented text: a name per line, key attributes, span events, error status. */
export function spanTreeText(spans: readonly ReadableSpan[]): string {
  const lines: string[] = [];
  const visit = (span: ReadableSpan, depth: number): void => {
    const attrs = SHOWN.filter((key) => span.attributes[key] !== undefined).map((key) => `${short(key)}=${show(span.attributes[key])}`);
    const ms = Math.round(hrMs(span.endTime) - hrMs(span.startTime));
    const status = span.status.code === 2 ? ` ERROR(${span.status.message ?? ''})` : '';
    lines.push(`${'  '.repeat(depth)}${span.name} [${ms} ms]${status}${attrs.length > 0 ? ` {${attrs.join(', ')}}` : ''}`);
    for (const event of span.events) lines.push(`${'  '.repeat(depth + 1)}· ${event.name}${eventAttrs(event.attributes)}`);
    for (const child of childrenOf(span, spans)) visit(child, depth + 1);
  };
  for (const root of rootsOf(spans)) visit(root, 0);
  return lines.join('\n');
}

function short(key: string): string {
  return key.replace(/^gen_ai\.usage\./, '').replace(/^gen_ai\./, '').replace(/^groundswell\./, 'gs.');
}

function show(value: AttributeValue | undefined): string {
  return Array.isArray(value) ? `[${value.join(',')}]` : String(value);
}

function eventAttrs(attributes: Attributes | undefined): string {
  if (attributes === undefined) return '';
  const keys = Object.keys(attributes).filter((key) => !key.startsWith('exception.stacktrace'));
  return keys.length === 0 ? '' : ` {${keys.map((key) => `${short(key)}=${show(attributes[key])}`).join(', ')}}`;
}
