import { describe, expect, it } from 'vitest';
import { jsonLength } from '../../src/budgets/json-length.js';
import { between } from './budget-helpers.js';
import { seeded } from '../support/seeded.js';

/** A random JSON value with no characters JSON must escape (those count once, as the model sees them). */
function randomValue(random: () => number, depth: number): unknown {
  const pick = between(random, 0, depth > 3 ? 3 : 5);
  if (pick === 0) return 'abc def '.repeat(between(random, 0, 5));
  if (pick === 1) return random() < 0.5 ? between(random, -100_000, 100_000) : random() * 1e6 - 5e5;
  if (pick === 2) return random() < 0.5;
  if (pick === 3) return null;
  if (pick === 4) return Array.from({ length: between(random, 0, 4) }, () => randomValue(random, depth + 1));
  return Object.fromEntries(Array.from({ length: between(random, 0, 4) }, (_, i) => [`key${i}`, randomValue(random, depth + 1)]));
}

function containers(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const items = Object.values(value);
  return (items.length > 0 ? 1 : 0) + items.reduce<number>((sum, item) => sum + containers(item), 0);
}

describe('the request size a budget estimates from', () => {
  it('is the JSON length, give or take one character per non-empty object or array, over 500 seeded values', () => {
    for (let seed = 1; seed <= 500; seed += 1) {
      const value = randomValue(seeded(seed), 0);
      const exact = JSON.stringify(value).length;
      const estimate = jsonLength(value, false);
      expect(estimate, `seed ${seed}`).toBeGreaterThanOrEqual(exact);
      expect(estimate, `seed ${seed}`).toBeLessThanOrEqual(exact + containers(value));
    }
  });

  it('leaves out what JSON leaves out and counts raw characters of escaped text', () => {
    expect(jsonLength({ a: undefined, f: () => 1, b: 1 }, false)).toBe(JSON.stringify({ b: 1 }).length + 1);
    expect(jsonLength('say "hi"\n', false)).toBe('say "hi"\n'.length + 2);
  });

  it('measures a remembered object once and gives the same length again', () => {
    const schema = { type: 'object', properties: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field${i}`, { type: 'string' }])) };
    const first = jsonLength(schema, true);
    expect(jsonLength(schema, true)).toBe(first);
    expect(first).toBe(jsonLength(schema, false));
  });
});
