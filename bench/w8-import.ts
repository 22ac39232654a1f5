/**
 * W8 (import): the cost of `import { Workflow, Step } from 'groundswell'` in a fresh Node process,
 * against bare Node (`node -e ""`): wall time from spawn to exit (measured by this process) and
 * the child's peak RSS (`process.resourceUsage().maxRSS`, printed by the child at exit). Runs the
 * built package (dist/index.js, the package's own `exports`; built first if missing or older than
 * src). A separate run with a resolve hook lists which SDKs (and zod) the import loaded: the Anthropic
 * and MCP SDKs and zod must load only on first use of an agent or MCP server.
 * Target: ≤ 1.5× bare Node in both time and memory.
 */
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { DIST_ENTRY, ensureDist, ROOT } from './built-package.js';
import { loadedFrom, resolvedUrls } from './resolved-urls.js';
import { elapsedNs, fixed1, fmtBytes, fmtMs, fmtX, median, now, recordRatio, section, table } from './harness.js';

const RUNS = 11;
const WARMUP = 1;
/** ≤ 1.5× bare Node's start time and memory. */
const TARGET_RATIO = 1.5;
/** Loaded only on first use: the SDKs, and zod (an agent's first call; decision 0029). */
const SDKS = ['@anthropic-ai/sdk', '@modelcontextprotocol/sdk', 'zod'] as const;

interface Variant {
  label: string;
  /** ES module source run with `node --input-type=module -e`; empty for bare Node. */
  code: string;
}

interface Sample {
  wallNs: number;
  maxRssBytes: number;
  /** performance.now() in the child when its code finished: ms since the child's time origin. */
  readyMs: number;
}

/** Printed by every child as its last act. */
const REPORT =
  'process.stdout.write(JSON.stringify({ rss: process.resourceUsage().maxRSS * 1024, ready: performance.now() }))';

function runChild(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<{ wallNs: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const start = now();
    const child = spawn(process.execPath, args, { cwd: ROOT, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallNs = elapsedNs(start);
      if (code !== 0) reject(new Error(`W8: node ${args.join(' ')} exited ${code}\n${stderr}`));
      else resolve({ wallNs, stdout });
    });
  });
}

function argsFor(variant: Variant): string[] {
  return ['--input-type=module', '-e', `${variant.code}\n${REPORT}`];
}

async function sample(variant: Variant): Promise<Sample> {
  const { wallNs, stdout } = await runChild(argsFor(variant));
  const report = JSON.parse(stdout) as { rss: number; ready: number };
  return { wallNs, maxRssBytes: report.rss, readyMs: report.ready };
}

/** The SDK modules a variant's code resolved, recorded by a resolve hook in a separate run. */
async function sdksLoaded(variant: Variant): Promise<string[]> {
  const urls = await resolvedUrls(argsFor(variant));
  return SDKS.filter((sdk) => loadedFrom(urls, `${sdk}/`));
}

export async function runW8(): Promise<void> {
  section(`W8  import cost: a fresh node process importing the built package vs bare node (median of ${RUNS} runs each)`);
  ensureDist();
  const entry = JSON.stringify(pathToFileURL(DIST_ENTRY).href);
  const variants: Variant[] = [
    { label: 'FLOOR: bare node -e ""', code: '' },
    { label: "import { Workflow, Step } from 'groundswell'", code: `const { Workflow, Step } = await import(${entry});\nif (typeof Workflow !== 'function' || typeof Step !== 'function') throw new Error('no Workflow');` },
    {
      label: "groundswell + import('@anthropic-ai/sdk', 'zod') (an agent's first call, info)",
      code: `await import(${entry});\nawait import('@anthropic-ai/sdk');\nawait import('zod');`,
    },
  ];

  const samples = variants.map((): Sample[] => []);
  for (let round = 0; round < WARMUP + RUNS; round += 1) {
    for (let k = 0; k < variants.length; k += 1) {
      const index = (round + k) % variants.length;
      const s = await sample(variants[index] as Variant);
      if (round >= WARMUP) samples[index]?.push(s);
    }
  }
  const loaded: string[][] = [];
  for (const variant of variants) loaded.push(await sdksLoaded(variant));

  const wall = samples.map((list) => median(list.map((s) => s.wallNs)));
  const rss = samples.map((list) => median(list.map((s) => s.maxRssBytes)));
  const ready = samples.map((list) => median(list.map((s) => s.readyMs)));
  const bareWall = wall[0] as number;
  const bareRss = rss[0] as number;
  const rows = variants.map((variant, i) => {
    const wallRatio = (wall[i] as number) / bareWall;
    const rssRatio = (rss[i] as number) / bareRss;
    const target = i === 1;
    return [
      variant.label,
      fmtMs(wall[i] as number),
      fmtX(wallRatio),
      target ? recordRatio('W8', 'import root: wall time vs bare node', wallRatio, TARGET_RATIO) : '-',
      fmtBytes(rss[i] as number),
      fmtX(rssRatio),
      target ? recordRatio('W8', 'import root: max RSS vs bare node', rssRatio, TARGET_RATIO) : '-',
      `${fixed1(ready[i] as number)} ms`,
      (loaded[i] ?? []).join(', ') || 'none',
    ];
  });
  console.log(
    table(
      ['variant', 'wall', 'vs floor', 'status', 'max RSS', 'vs floor', 'status', 'in-process ready', 'SDKs, zod loaded'],
      rows,
      ['left', 'right', 'right', 'left', 'right', 'right', 'left', 'right', 'left'],
    ),
  );
  console.log(
    `  (target ≤ ${fmtX(TARGET_RATIO)} bare node in wall time and in max RSS; variants interleaved, ${WARMUP} warm-up round;\n` +
      `   wall = spawn to exit measured here; max RSS = the child's process.resourceUsage().maxRSS at the end;\n` +
      `   in-process ready = the child's performance.now() after its imports; "SDKs, zod loaded" = module URLs seen by a resolve\n` +
      `   hook in one extra run of each variant; the package is dist/index.js as built by npm run build)`,
  );
}
