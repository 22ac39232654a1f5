import { describe, expect, it } from 'vitest';
import { cacheIdentity, differingParts, entryHeader, headerProblem } from '../../src/cache/cache-entry-header.js';
import { CACHE_KEY_PARTS } from '../../src/cache/cache-key-parts.js';
import type { CacheKeyPart } from '../../src/types/cache.js';

/** Full (64 hex) part hashes, every part `fill`, some parts overridden. */
function hashes(fill = 'a', overrides: Partial<Record<CacheKeyPart, string>> = {}): Record<CacheKeyPart, string> {
  const parts = Object.fromEntries(CACHE_KEY_PARTS.map((part) => [part, fill.repeat(64)])) as Record<CacheKeyPart, string>;
  return { ...parts, ...overrides };
}

function headerOf(parts: Record<CacheKeyPart, string>, ignored: CacheKeyPart[] = []): ReturnType<typeof entryHeader> {
  return entryHeader({
    agent: 'researcher',
    prompt: 'Summarise',
    identity: cacheIdentity('researcher', 'Summarise'),
    model: 'claude-test',
    parts,
    ignored: new Set(ignored),
    createdAt: 5,
  });
}

describe('entryHeader', () => {
  it('keeps 16-digit fingerprints, the ignored parts in part order, and cuts long texts', () => {
    const made = entryHeader({
      agent: 'a'.repeat(500),
      prompt: 'Summarise',
      identity: cacheIdentity('a', 'Summarise'),
      model: 'claude-test',
      parts: hashes('c'),
      ignored: new Set<CacheKeyPart>(['plan', 'ancestry']),
      createdAt: 5,
    });
    expect(made.parts.data).toBe('c'.repeat(16));
    expect(Object.keys(made.parts)).toEqual([...CACHE_KEY_PARTS]);
    expect(made.ignored).toEqual(['ancestry', 'plan']);
    expect(made.agent).toHaveLength(200);
    expect(made.agent.endsWith('...')).toBe(true);
    expect(headerProblem(made)).toBeUndefined();
  });

  it('cacheIdentity separates agent and prompt names unambiguously', () => {
    expect(cacheIdentity('a', 'b c')).not.toBe(cacheIdentity('a b', 'c'));
    expect(cacheIdentity('a', 'b')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('headerProblem tolerates unknown fields and parts (a newer version), and a header lacking a part', () => {
    const made = headerOf(hashes());
    expect(headerProblem({ ...made, future: true, parts: { ...made.parts, weather: 'sunny' } })).toBeUndefined();
    const { data: _dropped, ...fewer } = made.parts;
    expect(headerProblem({ ...made, parts: fewer })).toBeUndefined();
  });
});

describe('differingParts', () => {
  const none = new Set<CacheKeyPart>();

  it('is empty for the same parts, and names exactly the parts that changed, in part order', () => {
    const stored = headerOf(hashes());
    expect(differingParts(hashes(), none, stored)).toEqual([]);
    expect(differingParts(hashes('a', { model: 'b'.repeat(64), ancestry: 'c'.repeat(64) }), none, stored)).toEqual(['ancestry', 'model']);
  });

  it('does not report a part both ignore, but reports one that only one side ignores', () => {
    const stored = headerOf(hashes(), ['ancestry']);
    const moved = hashes('a', { ancestry: 'b'.repeat(64) });
    expect(differingParts(moved, new Set(['ancestry']), stored)).toEqual([]);
    expect(differingParts(hashes(), none, stored)).toEqual(['ancestry']);
    expect(differingParts(hashes(), new Set(['ancestry', 'plan']), stored)).toEqual(['plan']);
  });

  it('leaves out a part the stored header lacks (it cannot be compared)', () => {
    const stored = headerOf(hashes());
    const { user: _dropped, ...rest } = stored.parts;
    expect(differingParts(hashes('a', { user: 'b'.repeat(64) }), none, { ...stored, parts: rest })).toEqual([]);
  });
});
