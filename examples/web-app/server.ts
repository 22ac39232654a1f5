/**
 * Example web app: a durable research run streamed to a page, with an Approve/Deny pair for a tool
 * call, that survives a page reload and a server restart. Offline (a stand-in model), no framework.
 *
 * Run: npm run example:web        (prints the URL; open it and press Start)
 *
 * - this file: a Node `http` server. `/` is the page, `/app.js` its script (page.ts, bundled with
 *   esbuild when the server starts: the AI SDK's `readUIMessageStream` and groundswell's
 *   `readRunStream`). `POST /api/runs` starts a durable run (research.ts) and answers its id at
 *   once; `GET /api/runs/:id/stream` is the run's UI message stream (`writeUIMessageStream`),
 *   read from the run's store, so it resumes after the `Last-Event-ID` a client sends; `POST
 *   /api/approve` answers a tool call's approval request (`handleApproval`) and resumes the run.
 * - on start the server resumes every run its store still marks `running`: the last server died
 *   under them. A page that was reading one reconnects by itself and goes on from its last chunk.
 * - page.ts: shows the report as it is written, the run's steps with tokens and cost, and the tool
 *   calls; it keeps the run id and every chunk in `sessionStorage`, so a reload rebuilds the page
 *   and reads on from the last chunk, losing and repeating nothing.
 *
 * Environment: WEB_APP_PORT (default 3000; 0 picks a free one), WEB_APP_STORE (the journal store's
 * folder; default a new temp folder), WEB_APP_DELAY_MS (how long the stand-in model thinks per
 * answer, default 400), WEB_APP_PUBLISH_LOG (the file the `publish` tool appends to; default
 * published.log in the store's folder).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { isSuspension, resume, type DurableFactoryContext } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { handleApproval, writeUIMessageStream, type RunStreamOptions } from 'groundswell/web';
import { RESEARCH, researchWorkflow, researchWorkflows, startStandIn, type ResearchSetup } from './research.js';

export interface WebAppOptions {
  /** Default 3000; 0 picks a free port. */
  readonly port?: number;
  /** The journal store's folder (default: a new temp folder). */
  readonly storeDir?: string;
  /** How long the stand-in model takes per answer, in ms (default 400). */
  readonly delayMs?: number;
  /** The file the `publish` tool appends to (default: published.log in the store's folder). */
  readonly publishLog?: string;
  /** Where the server says what happens (default: console.log). */
  readonly log?: (line: string) => void;
}

export interface WebApp {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  readonly store: JournalRunStore;
  /** Stops listening, drops open streams, waits for the runs this process runs, closes the store. */
  close(): Promise<void>;
}

/**
 * What the run's stream carries: the writer's `report` field as the message's text (the other
 * calls show as steps and tool parts). Chunk ids depend on it: a reader of the store (a test, say)
 * uses the same options to get the same ids.
 */
export const STREAM_OPTIONS: RunStreamOptions = { textField: 'report', text: ({ agentName }) => agentName === 'writer' };

const HOST = '127.0.0.1';
const RUN_ID = /^[\w-]{1,80}$/;

export async function startWebApp(options: WebAppOptions = {}): Promise<WebApp> {
  const log = options.log ?? ((line: string) => console.log(line));
  const dir = options.storeDir ?? mkdtempSync(join(tmpdir(), 'gs-web-app-'));
  const store = new JournalRunStore({ dir });
  const standIn = await startStandIn(options.delayMs ?? 400);
  const setup: ResearchSetup = { store, model: standIn.model, publishLog: options.publishLog ?? join(dir, 'published.log') };
  const workflows = researchWorkflows(setup);

  // Every run this process drives, so close() can wait for them; none is awaited by a request.
  const driving = new Set<Promise<void>>();
  const drive = (runId: string, running: Promise<unknown>): void => {
    const settled = running.then(
      () => log(`run ${runId} completed`),
      (error: unknown) => log(isSuspension(error) ? `run ${runId} suspended: ${error.message}` : `run ${runId} failed: ${String(error)}`),
    );
    driving.add(settled);
    void settled.finally(() => driving.delete(settled));
  };

  // A run an approval resumes is driven like the others: its factory registers it, onResumed settles it.
  const resumedByApproval = new Map<string, (outcome: { readonly result?: unknown; readonly error?: unknown }) => void>();
  const approvalWorkflows: typeof workflows = Object.fromEntries(
    Object.entries(workflows).map(([name, factory]) => [
      name,
      (input: unknown, context: DurableFactoryContext) => {
        const { runId } = context;
        const outcome = new Promise<unknown>((done, fail) =>
          resumedByApproval.set(runId, (settled) => {
            resumedByApproval.delete(runId);
            if ('error' in settled) fail(settled.error);
            else done(settled.result);
          }),
        );
        drive(runId, outcome);
        return factory(input, context);
      },
    ]),
  );

  // Runs still marked running were interrupted: their server died (this one starts with none).
  for (const run of await store.listRuns({ status: 'running', rootName: RESEARCH })) {
    log(`resuming run ${run.id}`);
    drive(run.id, resume(run.id, { store, workflows }));
  }

  const script = bundlePage();
  // A failed bundle is reported when the page asks for it; the server itself still starts.
  script.catch(() => undefined);

  const server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => {
      log(`${req.method ?? 'GET'} ${req.url ?? ''} failed: ${String(error)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      else res.destroy();
    });
  });

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://app.invalid');
    const path = url.pathname;
    if (req.method === 'GET' && path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(PAGE);
      return;
    }
    if (req.method === 'GET' && path === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' }).end(await script);
      return;
    }
    if (req.method === 'POST' && path === '/api/runs') {
      const topic = topicOf(await bodyText(req));
      const runId = `run-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
      // Not awaited: the run goes on after this answer; the page reads it through its stream.
      drive(runId, researchWorkflow(setup, runId, { topic }).run());
      log(`run ${runId} started (${topic})`);
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ runId }));
      return;
    }
    const streamed = /^\/api\/runs\/([^/]+)\/stream$/.exec(path);
    if (req.method === 'GET' && streamed !== null) {
      const runId = decodeURIComponent(streamed[1] ?? '');
      if (!RUN_ID.test(runId)) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('Not a run id.');
        return;
      }
      await writeUIMessageStream(res, { store, runId }, { ...STREAM_OPTIONS, request: req });
      return;
    }
    if (path === '/api/approve') {
      await handleApproval(req, res, {
        store,
        workflows: approvalWorkflows,
        onResumed: (runId, outcome) => {
          const settle = resumedByApproval.get(runId);
          if (settle !== undefined) settle(outcome);
          else log(`run ${runId} could not be resumed: ${String(outcome.error)}`);
        },
      });
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found.');
  }

  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 3000, HOST, () => done());
  });
  const url = `http://${HOST}:${(server.address() as AddressInfo).port}/`;
  let closing: Promise<void> | undefined;
  return {
    url,
    store,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((done) => server.close(() => done()));
        // Open streams (a suspended run's stays open) would hold close() forever.
        server.closeAllConnections();
        await closed;
        await Promise.all([...driving]);
        await standIn.close();
        await store.close();
      })();
      return closing;
    },
  };
}

/** The topic a `POST /api/runs` asks for (`{ "topic": … }`), or the default. */
function topicOf(body: string): string {
  try {
    const { topic } = JSON.parse(body) as { topic?: unknown };
    if (typeof topic === 'string' && topic.trim() !== '' && topic.length <= 80) return topic.trim();
  } catch {
    // No body, or not JSON: the default topic.
  }
  return 'tides';
}

async function bodyText(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const part of req as AsyncIterable<Buffer>) {
    text += part.toString('utf8');
    if (text.length > 4096) break;
  }
  return text;
}

/** page.ts as one ES module for the browser, with `groundswell/web/client` taken from the sources. */
async function bundlePage(): Promise<string> {
  const fromSources: Plugin = {
    name: 'groundswell-web-client-from-sources',
    setup(plugin) {
      // Examples run from the repository: the package's subpath is its source file, as in tsconfig.json's paths.
      plugin.onResolve({ filter: /^groundswell\/web\/client$/ }, () => ({ path: fileURLToPath(new URL('../../src/web/client/index.ts', import.meta.url)) }));
    },
  };
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./page.ts', import.meta.url))],
    tsconfig: fileURLToPath(new URL('./tsconfig.json', import.meta.url)),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    plugins: [fromSources],
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.text;
  if (code === undefined) throw new Error('esbuild wrote no bundle for the page.');
  return code;
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>groundswell research</title>
<style>
  body { font: 15px/1.45 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
  #report { white-space: pre-wrap; min-height: 3rem; padding: .75rem; background: #f6f6f3; border-radius: 6px; }
  #report.earlier { color: #888; }
  ul { padding-left: 1.2rem; } li { margin: .15rem 0; }
  li[data-status="running"] { color: #0a58ca; } li[data-status="failed"], li[data-status="interrupted"] { color: #b02a37; }
  .tool { padding: .5rem; border: 1px solid #ddd; border-radius: 6px; margin: .4rem 0; }
  button { font: inherit; margin-right: .5rem; }
  #status { color: #555; }
</style>
</head>
<body>
<h1>Research run</h1>
<p><button id="start">Start a research run</button> <span id="status" data-state="idle">No run yet.</span></p>
<h2>Report</h2>
<div id="report" data-updates="0"></div>
<h2>Tool calls</h2>
<div id="tools"></div>
<h2>Steps</h2>
<ul id="steps"></ul>
<script type="module" src="/app.js"></script>
</body>
</html>
`;

// `npm run example:web` (or `npx tsx examples/web-app/server.ts`): serve until stopped.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const delay = Number(process.env.WEB_APP_DELAY_MS ?? '400');
  const app = await startWebApp({
    port: Number(process.env.WEB_APP_PORT ?? '3000'),
    ...(process.env.WEB_APP_STORE ? { storeDir: process.env.WEB_APP_STORE } : {}),
    ...(Number.isFinite(delay) && delay >= 0 ? { delayMs: delay } : {}),
    ...(process.env.WEB_APP_PUBLISH_LOG ? { publishLog: process.env.WEB_APP_PUBLISH_LOG } : {}),
  });
  console.log(`web app listening on ${app.url} (store: ${app.store.dir})`);
  const stop = (): void => void app.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
