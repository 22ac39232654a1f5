import { describe, expect, it } from 'vitest';
import { array } from '../../src/checks/collections.js';
import { configProblem } from '../../src/checks/config-problem.js';
import { flag, integer, nonEmptyText } from '../../src/checks/fields.js';
import { literal } from '../../src/checks/leaf.js';
import { strict } from '../../src/checks/object.js';
import { discriminatedUnion, union } from '../../src/checks/union.js';

// The checker behind every config check (decision 0029): what it reports, where, and in what order.
const setting = union([flag, strict({ attempts: integer(1).optional() }, 'an object like { attempts: 2 }')], 'true, false or { attempts }');
const server = discriminatedUnion(
  'kind',
  [strict({ kind: literal('a'), name: nonEmptyText }, 'an a'), strict({ kind: literal('b'), size: integer(0) }, 'a b')],
  { notObject: 'a server', unknownTag: 'one of: a, b' },
);
const config = strict({ name: nonEmptyText, setting: setting.optional(), servers: array(server, 'an array of servers').optional() });
const problem = (value: unknown): string | undefined => configProblem(config, value, 'config')?.text;

describe('the config checker', () => {
  it('passes a valid value, optional keys left out or undefined', () => {
    expect(problem({ name: 'x' })).toBeUndefined();
    expect(problem({ name: 'x', setting: { attempts: 2 }, servers: [{ kind: 'b', size: 0 }] })).toBeUndefined();
    // A key set to undefined is still a key: a typo must not pass just because its value is empty.
    expect(problem({ name: 'x', extra: undefined })).toMatch(/unknown key "extra"; known keys: name, setting, servers/);
    expect(problem({ name: 'x', setting: undefined })).toBeUndefined();
  });

  it('a union names the field inside the option the value fits, else its own expectation', () => {
    expect(problem({ name: 'x', setting: { attempts: 0 } })).toBe('config.setting.attempts must be a positive integer, got 0.');
    expect(problem({ name: 'x', setting: { atempts: 2 } })).toBe('config.setting has an unknown key "atempts" (did you mean attempts?).');
    expect(problem({ name: 'x', setting: 'yes' })).toBe('config.setting must be true, false or { attempts }, got "yes".');
  });

  it('a discriminated union checks the option its key picks, and reports an unknown pick at the key', () => {
    expect(problem({ name: 'x', servers: [{ kind: 'a', name: '' }] })).toBe('config.servers[0].name must be a non-empty string, got "".');
    expect(problem({ name: 'x', servers: [{ kind: 'c' }] })).toBe('config.servers[0].kind must be one of: a, b, got "c".');
    expect(problem({ name: 'x', servers: [7] })).toBe('config.servers[0] must be a server, got 7.');
  });

  it('reports fields in shape order, then unknown keys, at most three', () => {
    expect(problem({ servers: 1, setting: 2, nmae: 'x' })).toBe(
      'config.name is required: a non-empty string. config.setting must be true, false or { attempts }, got 2. ' +
        'config.servers must be an array of servers, got 1. (1 more problems not shown.)',
    );
  });

  it('keeps the issues, with paths, as the cause', () => {
    const cause = configProblem(config, { name: 'x', servers: [{ kind: 'b', size: -1 }] }, 'config')?.cause as { issues: { path: unknown }[] };
    expect(cause.issues.map((issue) => issue.path)).toEqual([['servers', 0, 'size']]);
  });
});
