import { afterAll } from 'vitest';

// Every test file closes the loopback Chat Completions servers its agents used (provider path
// only; the native path imports nothing here, so it loads no module ahead of a test file).
afterAll(async () => {
  if (process.env.GROUNDSWELL_TEST_MODEL_PATH !== 'provider') return;
  const { closeModelServers } = await import('./model-path.js');
  await closeModelServers();
});
