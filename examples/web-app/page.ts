/**
 * The web app's page (browser code, bundled by server.ts): no framework, plain DOM.
 *
 * The run's stream is read with groundswell's `readRunStream` (it reconnects with `Last-Event-ID`
 * when the connection drops, as when the server restarts) and turned into a message by the AI
 * SDK's `readUIMessageStream`. Every chunk is kept in `sessionStorage` with its id before it is
 * shown, so a reload rebuilds the message from them and reads on after the last one: nothing is
 * lost and nothing comes twice.
 *
 * For tests: `window.__chunkIds` (the chunk ids this page load received), `window.__stopReading()`
 * (stop reading, so those ids are final before a reload), and data attributes on the elements.
 */
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { readRunStream } from 'groundswell/web/client';

/** What a `data-node` part carries (the fields this page shows). */
interface NodeData {
  readonly nodeId: string;
  readonly kind: string;
  readonly name: string;
  readonly status: string;
  readonly durationMs?: number;
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number; readonly costUsd?: number };
  readonly replayed?: boolean;
}

type RunMessage = UIMessage<unknown, { node: NodeData }>;

/** A chunk as kept: with its id, the place to read on after. */
interface KeptChunk {
  readonly id: string;
  readonly chunk: UIMessageChunk;
}

interface Kept {
  readonly runId: string;
  readonly chunks: KeptChunk[];
  /** Approvals this page answered: their buttons stay hidden after a reload. */
  readonly answered: string[];
}

interface TestHooks {
  __chunkIds: string[];
  __stopReading: () => Promise<void>;
}

const KEY = 'groundswell-web-app';
const hooks = window as unknown as Window & TestHooks;
hooks.__chunkIds = [];

const byId = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`The page has no #${id}.`);
  return found as T;
};
const startButton = byId<HTMLButtonElement>('start');
const status = byId('status');
const report = byId('report');
const tools = byId('tools');
const steps = byId('steps');

let kept: Kept | undefined = load();
let stopped = false;
let reading: { cancel(): Promise<void> } | undefined;

function load(): Kept | undefined {
  const text = sessionStorage.getItem(KEY);
  return text === null ? undefined : (JSON.parse(text) as Kept);
}

function save(): void {
  if (kept !== undefined) sessionStorage.setItem(KEY, JSON.stringify(kept));
}

function setStatus(state: string, text: string): void {
  status.dataset.state = state;
  status.textContent = text;
}

hooks.__stopReading = async () => {
  stopped = true;
  await reading?.cancel();
};

startButton.addEventListener('click', () => {
  void (async () => {
    startButton.disabled = true;
    const response = await fetch('/api/runs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ topic: 'tides' }) });
    if (!response.ok) {
      setStatus('error', `Could not start a run: ${response.status}`);
      startButton.disabled = false;
      return;
    }
    const { runId } = (await response.json()) as { runId: string };
    kept = { runId, chunks: [], answered: [] };
    save();
    report.textContent = '';
    report.dataset.updates = '0';
    steps.replaceChildren();
    tools.replaceChildren();
    await follow(kept);
  })().catch((error: unknown) => setStatus('error', String(error)));
});

/** Shows the kept chunks, then reads the run's stream on from the last of them. */
async function follow(run: Kept): Promise<void> {
  setStatus('running', `Run ${run.runId}`);
  document.body.dataset.runId = run.runId;
  const finished = run.chunks.some(({ chunk }) => chunk.type === 'finish');
  const live = finished
    ? undefined
    : readRunStream(`/api/runs/${encodeURIComponent(run.runId)}/stream`, {
        ...(run.chunks.length > 0 ? { after: (run.chunks.at(-1) as KeptChunk).id } : {}),
        onChunkId: (id) => ids.push(id),
        // A restarting server can take a while: keep trying for a minute or so.
        maxRetries: 20,
      }).getReader();
  reading = live;
  // The ids readRunStream reports, in order: one for each chunk it hands on.
  const ids: string[] = [];
  const chunks = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const { chunk } of run.chunks) controller.enqueue(chunk);
      if (live === undefined) controller.close();
    },
    async pull(controller) {
      if (live === undefined) return;
      const next = await live.read();
      if (next.done || stopped) {
        controller.close();
        return;
      }
      const id = ids.shift() ?? '';
      // groundswell declares the protocol's chunk types itself (no `ai` dependency): the same wire shapes.
      const chunk = next.value as UIMessageChunk;
      run.chunks.push({ id, chunk });
      save();
      hooks.__chunkIds.push(id);
      controller.enqueue(chunk);
    },
    async cancel() {
      await live?.cancel();
    },
  });
  try {
    for await (const message of readUIMessageStream<RunMessage>({ stream: chunks })) render(run, message);
    if (!stopped) setStatus(run.chunks.some(({ chunk }) => chunk.type === 'finish') ? 'done' : 'stopped', `Run ${run.runId}: ${statusWord(run)}`);
  } catch (error) {
    setStatus('error', `Run ${run.runId}: ${String(error)}`);
  }
  startButton.disabled = stopped;
}

function statusWord(run: Kept): string {
  const finish = run.chunks.find(({ chunk }) => chunk.type === 'finish')?.chunk;
  if (finish === undefined) return 'stopped reading';
  return finish.type === 'finish' && finish.finishReason === 'stop' ? 'completed' : 'ended with an error';
}

function render(run: Kept, message: RunMessage): void {
  // After a restart the writer may start over: its earlier, cut-off text part is not the report.
  const texts = message.parts.filter((part) => part.type === 'text');
  const text = texts.at(-1)?.text ?? '';
  if (report.textContent !== text) {
    report.textContent = text;
    report.dataset.updates = String(Number(report.dataset.updates ?? '0') + 1);
  }
  report.dataset.parts = String(texts.length);
  renderSteps(message.parts.flatMap((part) => (part.type === 'data-node' ? [part.data] : [])));
  renderTools(run, message.parts.flatMap((part) => (part.type === 'dynamic-tool' ? [part] : [])));
}

function renderSteps(nodes: readonly NodeData[]): void {
  steps.replaceChildren(
    ...nodes.map((node) => {
      const item = document.createElement('li');
      item.dataset.nodeId = node.nodeId;
      item.dataset.kind = node.kind;
      item.dataset.name = node.name;
      item.dataset.status = node.status;
      const parts = [`${node.kind} ${node.name}`, node.replayed === true ? `${node.status} (replayed)` : node.status];
      if (node.durationMs !== undefined) parts.push(`${Math.round(node.durationMs)} ms`);
      if (node.usage !== undefined) {
        const total = node.usage.inputTokens + node.usage.outputTokens;
        item.dataset.tokens = String(total);
        parts.push(`${total} tokens (${node.usage.inputTokens} in, ${node.usage.outputTokens} out)`);
        if (node.usage.costUsd !== undefined) parts.push(`$${node.usage.costUsd.toFixed(6)}`);
      }
      item.textContent = parts.join(' · ');
      return item;
    }),
  );
}

type ToolPart = Extract<RunMessage['parts'][number], { type: 'dynamic-tool' }>;

function renderTools(run: Kept, parts: readonly ToolPart[]): void {
  tools.replaceChildren(
    ...parts.map((part) => {
      const box = document.createElement('div');
      box.className = 'tool';
      box.dataset.toolName = part.toolName;
      box.dataset.state = part.state;
      const title = document.createElement('div');
      title.textContent = `${part.toolName}(${JSON.stringify(part.input)}) — ${part.state}${part.state === 'output-available' ? `: ${String(part.output)}` : ''}`;
      box.append(title);
      if (part.state === 'approval-requested' && !run.answered.includes(part.approval.id)) box.append(approvalButtons(run, part.approval.id));
      return box;
    }),
  );
}

/** Approve and Deny: the answer goes to the server, which stores it and resumes the run. */
function approvalButtons(run: Kept, approvalId: string): HTMLElement {
  const row = document.createElement('div');
  for (const approved of [true, false]) {
    const button = document.createElement('button');
    button.id = approved ? 'approve' : 'deny';
    button.textContent = approved ? 'Approve' : 'Deny';
    button.dataset.approvalId = approvalId;
    button.addEventListener('click', () => {
      void (async () => {
        for (const other of row.querySelectorAll('button')) other.disabled = true;
        const response = await fetch('/api/approve', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ runId: run.runId, approvalId, approved, ...(approved ? {} : { reason: 'not this time' }) }),
        });
        if (response.ok) {
          run.answered.push(approvalId);
          save();
          row.replaceChildren(approved ? 'Approved: waiting for the run to go on…' : 'Denied: waiting for the run to go on…');
        } else {
          row.replaceChildren(`The answer was refused: ${(await response.text()).slice(0, 200)}`);
        }
      })();
    });
    row.append(button);
  }
  return row;
}

if (kept !== undefined) {
  startButton.disabled = true;
  void follow(kept);
}
document.body.dataset.ready = '1';
