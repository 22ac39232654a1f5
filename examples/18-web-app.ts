/**
 * Example 18: the example web app (examples/web-app/), driven over HTTP with no browser.
 *
 * - starts the app's server in this process on a free port, with its store in a temp folder
 * - `POST /api/runs` starts a durable research run; the answer is its id, the run goes on
 * - the run's stream (`GET /api/runs/:id/stream`) is read with `readRunStream` from
 *   groundswell/web/client, the reader a page uses: the steps as they start and end, the tool
 *   calls, and the report's text as the model writes it
 * - the `publish` tool needs approval: the stream carries a `tool-approval-request`, answered with
 *   `POST /api/approve`; the server stores the answer and resumes the run, and the stream goes on
 * - prints the final report and what the publish tool did, then closes the server
 *
 * Offline (a stand-in model). To use the app in a browser: npm run example:web
 * Run: npx tsx examples/18-web-app.ts
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRunStream } from 'groundswell/web/client';
import { startWebApp } from './web-app/server.js';

const dir = mkdtempSync(join(tmpdir(), 'gs-example-18-'));
const app = await startWebApp({ port: 0, storeDir: dir, delayMs: 20, log: (line) => console.log(`  [server] ${line}`) });
try {
  console.log(`web app at ${app.url}`);
  const started = await fetch(new URL('api/runs', app.url), { method: 'POST', body: JSON.stringify({ topic: 'tides' }) });
  const { runId } = (await started.json()) as { runId: string };
  console.log(`started run ${runId}`);

  let report = '';
  let deltas = 0;
  for await (const chunk of readRunStream(new URL(`api/runs/${runId}/stream`, app.url).href)) {
    if (chunk.type === 'data-node' && chunk.data.kind !== 'workflow' && chunk.data.status !== 'running') {
      const usage = chunk.data.usage === undefined ? '' : `, ${chunk.data.usage.inputTokens + chunk.data.usage.outputTokens} tokens`;
      console.log(`  ${chunk.data.kind} ${chunk.data.name}: ${chunk.data.status}${usage}`);
    } else if (chunk.type === 'tool-input-available') {
      console.log(`  tool ${chunk.toolName} called with ${JSON.stringify(chunk.input)}`);
    } else if (chunk.type === 'tool-approval-request') {
      // What a person's click on Approve sends.
      const answer = await fetch(new URL('api/approve', app.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ runId, approvalId: chunk.approvalId, approved: true }),
      });
      console.log(`  approval asked ("${chunk.approvalId}"): approved, the server answered ${answer.status}`);
    } else if (chunk.type === 'tool-output-available') {
      console.log(`  tool result: ${String(chunk.output)}`);
    } else if (chunk.type === 'text-delta') {
      report += chunk.delta;
      deltas += 1;
    }
  }
  console.log(`report (${deltas} pieces as it was written):\n  ${report}`);
  console.log(`publish log: ${readFileSync(join(dir, 'published.log'), 'utf8').trim()}`);
  if (!report.includes('Publishing was approved')) throw new Error('The report does not say publishing was approved.');
} finally {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}
