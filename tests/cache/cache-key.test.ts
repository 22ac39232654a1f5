import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UsageError } from 'groundswell';
import { cacheKey, cacheKeyFromParts, cacheKeyPartHashes, cacheKeyPrefix, type CacheKeyInput } from '../../src/cache/cache-key.js';
import { CACHE_KEY_PARTS } from '../../src/cache/cache-key-parts.js';
import type { CacheKeyPart } from '../../src/types/cache.js';

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

  it('has the value it had before keys were built from parts: recordings made earlier still hit', () => {
    expect(cacheKey(base())).toBe('gs:098e1ee9244b54329bbf8c984dbde1f0224f49a00d10bbce9b8fdbf62caa1705');
    expect(cacheKey({ ...base(), plan: undefined })).toBe(cacheKey(base()));
  });

  // Each variation, and the one key part it belongs to.
  const changes: Array<[string, (input: CacheKeyInput) => CacheKeyInput, CacheKeyPart]> = [
    ['user', (i) => ({ ...i, user: 'Summarise the data!' }), 'user'],
    ['data value', (i) => ({ ...i, data: { ...(i.data as object), meta: { source: 'test', at: '2024-01-02' } } }), 'data'],
    ['data array order', (i) => ({ ...i, data: { ...(i.data as object), items: [{ id: 1, tags: ['b', 'a'] }] } }), 'data'],
    ['system', (i) => ({ ...i, system: 'You are verbose.' }), 'system'],
    ['system undefined vs empty', (i) => ({ ...i, system: undefined }), 'system'],
    ['model', (i) => ({ ...i, model: 'claude-opus' }), 'model'],
    ['sampling.maxTokens', (i) => ({ ...i, sampling: { ...i.sampling, maxTokens: 1025 } }), 'settings'],
    ['sampling.temperature', (i) => ({ ...i, sampling: { ...i.sampling, temperature: 0.3 } }), 'settings'],
    ['sampling.temperature removed', (i) => ({ ...i, sampling: { maxTokens: 1024, stop: ['END'] } }), 'settings'],
    ['sampling.stop', (i) => ({ ...i, sampling: { ...i.sampling, stop: ['END', 'STOP'] } }), 'settings'],
    ['tool added', (i) => ({ ...i, tools: [...i.tools, { name: 'calc', inputSchema: {} }] }), 'tools'],
    ['tool order', (i) => ({ ...i, tools: [...i.tools].reverse() }), 'tools'],
    ['tool description', (i) => ({ ...i, tools: [{ ...i.tools[0]!, description: 'Search the web' }, i.tools[1]!] }), 'tools'],
    ['tool input schema', (i) => ({ ...i, tools: [{ ...i.tools[0]!, inputSchema: { type: 'object' } }, i.tools[1]!] }), 'tools'],
    [
      'mcp identity',
      (i) => ({ ...i, mcps: [{ name: 'files', identity: { command: 'mcp-files', args: ['--root', '/tmp'], envKeys: ['TOKEN'] } }] }),
      'tools',
    ],
    ['mcp removed', (i) => ({ ...i, mcps: [] }), 'tools'],
    ['skill content', (i) => ({ ...i, skills: [{ ...i.skills[0]!, content: 'Be very brief.' }] }), 'system'],
    ['skill description', (i) => ({ ...i, skills: [{ name: 'style', content: 'Be brief.' }] }), 'system'],
    ['response schema', (i) => ({ ...i, responseSchema: z.object({ answer: z.string().min(5) }) }), 'schema'],
    ['plan added', (i) => ({ ...i, plan: '# Plan\n- [/] Ship it' }), 'plan'],
    ['a field no part names', (i) => ({ ...i, extra: 1 }) as CacheKeyInput, 'settings'],
  ];

  it.each(changes)('changes when %s changes', (_label, change) => {
    expect(cacheKey(change(base()))).not.toBe(cacheKey(base()));
  });

  it('gives every variation its own key', () => {
    const keys = new Set(changes.map(([, change]) => cacheKey(change(base()))));
    expect(keys.size).toBe(changes.length);
  });

  it.each(changes)('%s changes exactly one part hash: %s', (_label, change, part) => {
    const before = cacheKeyPartHashes(base());
    const after = cacheKeyPartHashes(change(base()));
    expect(CACHE_KEY_PARTS.filter((name) => before[name] !== after[name])).toEqual([part]);
  });

  it('part hashes are SHA-256 hex, stable across separately built inputs, the schema part being its schemaHash', () => {
    const parts = cacheKeyPartHashes(base());
    for (const part of CACHE_KEY_PARTS) expect(parts[part]).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheKeyPartHashes({ ...base(), responseSchema: z.object({ answer: z.string().min(1) }) })).toEqual(parts);
  });

  it('with system sections, identity, ancestry and guidance are parts of their own', () => {
    const sections = { identity: 'You are terse.', ancestry: "# Why You're Here\nGoal: A", guidance: '' };
    const parts = cacheKeyPartHashes(base(), sections);
    const moved = cacheKeyPartHashes(base(), { ...sections, ancestry: "# Why You're Here\nGoal: B" });
    expect(CACHE_KEY_PARTS.filter((name) => parts[name] !== moved[name])).toEqual(['ancestry']);
    const guided = cacheKeyPartHashes(base(), { ...sections, guidance: 'Cite sources.' });
    expect(CACHE_KEY_PARTS.filter((name) => parts[name] !== guided[name])).toEqual(['guidance']);
    // The identity section with no ancestry hashes like the plain system text.
    expect(parts.system).toBe(cacheKeyPartHashes(base()).system);
  });

  it('throws a UsageError naming the path when the request holds non-JSON data', () => {
    expect(() => cacheKey({ ...base(), data: { rows: [{ when: 1n }] } })).toThrow(UsageError);
    expect(() => cacheKey({ ...base(), data: { rows: [{ when: 1n }] } })).toThrow('$.data.rows[0].when');
    expect(() => cacheKey({ ...base(), tools: [{ name: 't', inputSchema: { parse: () => 1 } }] })).toThrow(
      'a function at $.tools[0].inputSchema.parse',
    );
  });
});

describe('cacheKeyFromParts', () => {
  const none = new Set<CacheKeyPart>();
  const ancestry = new Set<CacheKeyPart>(['ancestry']);
  const sections = (goal: string): { identity: string; ancestry: string; guidance: string } => ({
    identity: 'You are terse.',
    ancestry: `# Why You're Here\nGoal: ${goal}`,
    guidance: '',
  });

  it('leaves an ignored part out: the key stays when only that part changes, and moves when another does', () => {
    const a = cacheKeyPartHashes(base(), sections('A'));
    const b = cacheKeyPartHashes(base(), sections('B'));
    expect(cacheKeyFromParts(a, ancestry, 'agent')).toBe(cacheKeyFromParts(b, ancestry, 'agent'));
    expect(cacheKeyFromParts(a, none, 'agent')).not.toBe(cacheKeyFromParts(b, none, 'agent'));
    const otherUser = cacheKeyPartHashes({ ...base(), user: 'Other' }, sections('A'));
    expect(cacheKeyFromParts(otherUser, ancestry, 'agent')).not.toBe(cacheKeyFromParts(a, ancestry, 'agent'));
  });

  it('never equals the whole-input key, and differs per ignore list and namespace', () => {
    const parts = cacheKeyPartHashes(base());
    const keys = [
      cacheKey(base(), 'agent'),
      cacheKeyFromParts(parts, none, 'agent'),
      cacheKeyFromParts(parts, ancestry, 'agent'),
      cacheKeyFromParts(parts, new Set<CacheKeyPart>(['ancestry', 'plan']), 'agent'),
      cacheKeyFromParts(parts, ancestry, 'other'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys[2]).toMatch(/^agent:[0-9a-f]{64}$/);
    expect(keys[4]?.startsWith(cacheKeyPrefix('other'))).toBe(true);
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
