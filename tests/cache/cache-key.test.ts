import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UsageError } from 'groundswell';
import { cacheKey, cacheKeyPrefix, type CacheKeyInput } from '../../src/cache/cache-key.js';

const Answer = z.object({ answer: z.string().min(1) });

function base(): CacheKeyInput {
  return {
    user: 'Summarise the data.',
    data: { items: [{ id: 1, tags: ['a', 'b'] }], meta: { source: 'test', at: '2024-01-01' } },
    system: 'You are terse.',
    model: 'claude-sonnet',
    sampling: { maxTokens: 1024, temperature: 0.2, stop: ['END'] },
    tools: [
      { name: 'search', description: 'Web search', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
      { name: 'fetch', inputSchema: { type: 'object' } },
    ],
    mcps: [{ name: 'files', identity: { command: 'mcp-files', args: ['--root', '/data'], envKeys: ['TOKEN'] } }],
    skills: [{ name: 'style', description: 'House style', content: 'Be brief.' }],
    responseSchema: Answer,
  };
}

describe('cacheKey', () => {
  it('is `namespace:` plus a SHA-256 hex digest, namespace "gs" by default', () => {
    expect(cacheKey(base())).toMatch(/^gs:[0-9a-f]{64}$/);
    expect(cacheKey(base(), 'researcher')).toMatch(/^researcher:[0-9a-f]{64}$/);
    expect(cacheKey(base(), 'researcher').slice('researcher:'.length)).toBe(cacheKey(base()).slice(3));
  });

  it('is stable: same input, separately built (schema included), same key', () => {
    const again = { ...base(), responseSchema: z.object({ answer: z.string().min(1) }) };
    expect(cacheKey(again)).toBe(cacheKey(base()));
  });

  it('does not depend on the key order of data (or of any object)', () => {
    const reordered: CacheKeyInput = {
      responseSchema: Answer,
      skills: [{ content: 'Be brief.', description: 'House style', name: 'style' }],
      mcps: [{ identity: { envKeys: ['TOKEN'], args: ['--root', '/data'], command: 'mcp-files' }, name: 'files' }],
      tools: [
        { inputSchema: { properties: { q: { type: 'string' } }, type: 'object' }, description: 'Web search', name: 'search' },
        { inputSchema: { type: 'object' }, name: 'fetch' },
      ],
      sampling: { stop: ['END'], temperature: 0.2, maxTokens: 1024 },
      model: 'claude-sonnet',
      system: 'You are terse.',
      data: { meta: { at: '2024-01-01', source: 'test' }, items: [{ tags: ['a', 'b'], id: 1 }] },
      user: 'Summarise the data.',
    };
    expect(cacheKey(reordered)).toBe(cacheKey(base()));
  });

  it('treats an undefined optional field like an absent one', () => {
    const a = { ...base(), sampling: { maxTokens: 10 } };
    const b = { ...base(), sampling: { maxTokens: 10, temperature: undefined, stop: undefined } };
    expect(cacheKey(a)).toBe(cacheKey(b));
  });

  const changes: Array<[string, (input: CacheKeyInput) => CacheKeyInput]> = [
    ['user', (i) => ({ ...i, user: 'Summarise the data!' })],
    ['data value', (i) => ({ ...i, data: { ...(i.data as object), meta: { source: 'test', at: '2024-01-02' } } })],
    ['data array order', (i) => ({ ...i, data: { ...(i.data as object), items: [{ id: 1, tags: ['b', 'a'] }] } })],
    ['system', (i) => ({ ...i, system: 'You are verbose.' })],
    ['system undefined vs empty', (i) => ({ ...i, system: undefined })],
    ['model', (i) => ({ ...i, model: 'claude-opus' })],
    ['sampling.maxTokens', (i) => ({ ...i, sampling: { ...i.sampling, maxTokens: 1025 } })],
    ['sampling.temperature', (i) => ({ ...i, sampling: { ...i.sampling, temperature: 0.3 } })],
    ['sampling.temperature removed', (i) => ({ ...i, sampling: { maxTokens: 1024, stop: ['END'] } })],
    ['sampling.stop', (i) => ({ ...i, sampling: { ...i.sampling, stop: ['END', 'STOP'] } })],
    ['tool added', (i) => ({ ...i, tools: [...i.tools, { name: 'calc', inputSchema: {} }] })],
    ['tool order', (i) => ({ ...i, tools: [...i.tools].reverse() })],
    ['tool description', (i) => ({ ...i, tools: [{ ...i.tools[0]!, description: 'Search the web' }, i.tools[1]!] })],
    ['tool input schema', (i) => ({ ...i, tools: [{ ...i.tools[0]!, inputSchema: { type: 'object' } }, i.tools[1]!] })],
    ['mcp identity', (i) => ({ ...i, mcps: [{ name: 'files', identity: { command: 'mcp-files', args: ['--root', '/tmp'], envKeys: ['TOKEN'] } }] })],
    ['mcp removed', (i) => ({ ...i, mcps: [] })],
    ['skill content', (i) => ({ ...i, skills: [{ ...i.skills[0]!, content: 'Be very brief.' }] })],
    ['skill description', (i) => ({ ...i, skills: [{ name: 'style', content: 'Be brief.' }] })],
    ['response schema', (i) => ({ ...i, responseSchema: z.object({ answer: z.string().min(5) }) })],
  ];

  it.each(changes)('changes when %s changes', (_label, change) => {
    expect(cacheKey(change(base()))).not.toBe(cacheKey(base()));
  });

  it('gives every variation its own key', () => {
    const keys = new Set(changes.map(([, change]) => cacheKey(change(base()))));
    expect(keys.size).toBe(changes.length);
  });

  it('throws a UsageError naming the path when the request holds non-JSON data', () => {
    expect(() => cacheKey({ ...base(), data: { rows: [{ when: 1n }] } })).toThrow(UsageError);
    expect(() => cacheKey({ ...base(), data: { rows: [{ when: 1n }] } })).toThrow('$.data.rows[0].when');
    expect(() => cacheKey({ ...base(), tools: [{ name: 't', inputSchema: { parse: () => 1 } }] })).toThrow(
      'a function at $.tools[0].inputSchema.parse',
    );
  });
});

describe('cacheKeyPrefix', () => {
  it('is the start of every key of that namespace, and only of those', () => {
    expect(cacheKey(base(), 'researcher').startsWith(cacheKeyPrefix('researcher'))).toBe(true);
    expect(cacheKey(base(), 'researcher-2').startsWith(cacheKeyPrefix('researcher'))).toBe(false);
  });

  it('escapes ":" and "%" so namespace "a" never matches the keys of namespace "a:b"', () => {
    expect(cacheKeyPrefix('a:b')).toBe('a%3Ab:');
    expect(cacheKeyPrefix('50%')).toBe('50%25:');
    expect(cacheKey(base(), 'a:b')).toMatch(/^a%3Ab:[0-9a-f]{64}$/);
    expect(cacheKey(base(), 'a:b').startsWith(cacheKeyPrefix('a'))).toBe(false);
    expect(cacheKeyPrefix('a%3Ab')).not.toBe(cacheKeyPrefix('a:b'));
  });
});
