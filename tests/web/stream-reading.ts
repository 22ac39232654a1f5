import { readUIMessageStream, type UIMessage } from 'ai';
import type { UIChunk } from 'groundswell/web';

/** Everything `items` gives, in order. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The message the AI SDK's own reader builds from `stream`, as it stands at the stream's end. */
export async function lastMessage(stream: ReadableStream<UIChunk>): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream })) last = message;
  return last;
}
