import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// `import 'groundswell'` must not load the Anthropic SDK (nor the MCP SDK): both load on first use
// of an agent or MCP server. A fresh node process with a resolve hook refusing both SDKs imports
// the root entry from src (through tsx), runs a workflow, and sees an agent's first
// call, and only that, reach for @anthropic-ai/sdk. The pack test checks the built CommonJS entry.
const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));

it('importing the root entry loads neither SDK; the first agent call loads the Anthropic SDK', async () => {
  const output = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', 'import-root.mjs'], { cwd: fixtures }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
  expect(output).toContain('root import loads no SDK');
}, 60_000);

it('importing the root entry, checking configs and running a workflow load no zod; the first agent call loads it', async () => {
  const output = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', 'import-root-no-zod.mjs'], { cwd: fixtures }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
  expect(output).toContain('root import loads no zod');
}, 60_000);
