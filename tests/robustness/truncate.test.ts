import { describe, expect, it } from 'vitest';
import { truncate } from '../../src/util/truncate.js';

// The one truncation helper behind tool outputs, introspection answers and cache headers.
describe('truncate', () => {
  const marker = (dropped: number): string => ` [+${dropped}]`;

  it('leaves text within the bound alone', () => {
    expect(truncate('short', 5, marker)).toBe('short');
  });

  it('stays within the bound with its marker, and the marker counts exactly what was dropped', () => {
    for (const length of [51, 99, 100, 101, 1_000, 10_001]) {
      const text = 'x'.repeat(length);
      const out = truncate(text, 50, marker);
      expect(out.length).toBeLessThanOrEqual(50);
      const kept = out.indexOf(' [+');
      expect(out.slice(kept)).toBe(` [+${length - kept}]`);
    }
  });

  it('never splits a surrogate pair (an emoji stays whole or goes)', () => {
    const text = `${'a'.repeat(9)}😀${'b'.repeat(40)}`;
    const out = truncate(text, 16, marker);
    expect(out.startsWith('a'.repeat(9))).toBe(true);
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});
