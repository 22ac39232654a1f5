import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { connectMcp } from 'groundswell/mcp';
import { echoServerConfig } from './fixtures/echo-server-config.js';
import { createInProcessServer } from './fixtures/in-process-server.js';

const VAR = 'GROUNDSWELL_MCP_TEST_VALUE';

// The timeout covers starting two children under tsx on a loaded machine.
describe('per-call env', { timeout: 20_000 }, () => {
  it('reaches each stdio child on its own, without touching process.env', async () => {
    const before = { ...process.env };
    expect(process.env[VAR]).toBeUndefined();
    // Any variable of this process outside the SDK's safe list must not leak into children.
    const hostOnly = Object.keys(process.env).find((k) => !DEFAULT_INHERITED_ENV_VARS.includes(k));

    const [a, b] = await Promise.all([
      connectMcp(echoServerConfig({ name: 'env-a', env: { [VAR]: 'from-config', CONFIG_ONLY: 'kept' } }), { env: { [VAR]: 'call-a' } }),
      connectMcp(echoServerConfig({ name: 'env-b' }), { env: { [VAR]: 'call-b' } }),
    ]);
    try {
      expect(process.env[VAR]).toBeUndefined();
      const read = (name: string) => Promise.all([a.callTool('env', { name }), b.callTool('env', { name })]);

      const [valueA, valueB] = await read(VAR);
      expect(valueA).toMatchObject({ content: 'call-a', isError: false });
      expect(valueB).toMatchObject({ content: 'call-b', isError: false });

      const [configA, configB] = await read('CONFIG_ONLY');
      expect(configA.content).toBe('kept');
      expect(configB.content).toBe('<unset>');

      if (process.env.PATH !== undefined) {
        const [pathA] = await read('PATH');
        expect(pathA.content).toBe(process.env.PATH);
      }
      if (hostOnly !== undefined) {
        const [leakA, leakB] = await read(hostOnly);
        expect(leakA.content).toBe('<unset>');
        expect(leakB.content).toBe('<unset>');
      }
      expect(process.env[VAR]).toBeUndefined();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    expect(process.env).toEqual(before);
  });

  it('reaches in-process tools through the request _meta, per connection', async () => {
    const before = { ...process.env };
    const { server } = createInProcessServer();
    const config = { name: 'mem', transport: 'in-process', server } as const;
    const [a, b, none] = await Promise.all([
      connectMcp(config, { env: { [VAR]: 'mem-a' } }),
      connectMcp(config, { env: { [VAR]: 'mem-b' } }),
      connectMcp(config),
    ]);
    try {
      const results = await Promise.all([a, b, none].map((c) => c.callTool('env', { name: VAR })));
      expect(results.map((r) => r.content)).toEqual(['mem-a', 'mem-b', '<unset>']);
    } finally {
      await Promise.all([a.close(), b.close(), none.close()]);
    }
    expect(process.env).toEqual(before);
  });
});
