import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The public surface, chosen on purpose (decision 0026): every name an entry exports, read from
// the entry files' export lists (entries re-export by name, never `export *`). A change to the
// surface changes the snapshot, so it is made deliberately (`vitest -u`) and reviewed.

const ENTRIES = {
  groundswell: 'src/index.ts',
  'groundswell/plans': 'src/plans/index.ts',
  'groundswell/cache': 'src/cache/index.ts',
  'groundswell/mcp': 'src/mcp/index.ts',
  'groundswell/testing': 'src/testing/index.ts',
  'groundswell/durable': 'src/durable/index.ts',
  'groundswell/postgres': 'src/durable/postgres/index.ts',
  'groundswell/viewer': 'src/viewer/index.ts',
  'groundswell/web': 'src/web/index.ts',
  'groundswell/web/client': 'src/web/client/index.ts',
  'groundswell/otel': 'src/otel/index.ts',
  'groundswell/redis': 'src/redis/index.ts',
  'groundswell/dbos': 'src/durable/dbos/index.ts',
} as const;

// Prompt wording and algorithms: internal, so they can change without a major version.
const INTERNAL = [
  'JUDGE_SYSTEM',
  'PLAN_DRAFTING_SYSTEM',
  'COMPLETE_GOAL_DESCRIPTION',
  'judgeRequest',
  'planResync',
  'staleReminder',
  'GOAL_ANCESTRY_HEADING',
  'renderGoalAncestry',
  'CHECKPOINT_HEADING',
  'DEFAULT_CHECKPOINT_CHARS',
  'renderCheckpoint',
  'renderChildSlice',
  'assessTrajectory',
  'checkpointFingerprint',
  'canonicalJson',
  'parseVerdict',
  'JudgeVerdictError',
];

interface Exported {
  readonly names: string[];
  readonly starExports: number;
}

function exportsOf(file: string): Exported {
  const path = fileURLToPath(new URL(`../../${file}`, import.meta.url));
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022);
  const names: string[] = [];
  let starExports = 0;
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const clause = statement.exportClause;
    if (clause === undefined || ts.isNamespaceExport(clause)) starExports += 1;
    else for (const element of clause.elements) names.push(element.name.text);
  }
  return { names: names.sort(), starExports };
}

const surface = Object.fromEntries(Object.entries(ENTRIES).map(([entry, file]) => [entry, exportsOf(file)]));

describe('public surface', () => {
  it('entries export by name (no `export *`)', () => {
    expect(Object.entries(surface).filter(([, e]) => e.starExports > 0).map(([entry]) => entry)).toEqual([]);
  });

  it('each name is exported by one entry only', () => {
    const owners = new Map<string, string[]>();
    for (const [entry, { names }] of Object.entries(surface)) {
      for (const name of names) owners.set(name, [...(owners.get(name) ?? []), entry]);
    }
    expect([...owners].filter(([, entries]) => entries.length > 1)).toEqual([]);
  });

  it('prompt wording and algorithms are exported by no entry', () => {
    const everything = new Set(Object.values(surface).flatMap((e) => e.names));
    expect(INTERNAL.filter((name) => everything.has(name))).toEqual([]);
  });

  it('matches the reviewed list of names per entry', () => {
    expect(Object.fromEntries(Object.entries(surface).map(([entry, e]) => [entry, { count: e.names.length, names: e.names }]))).toMatchSnapshot();
  });
});
