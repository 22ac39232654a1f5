/**
 * The compare page (`viewer.showComparison`): two runs side by side, one row per matched node
 * path, highlighted by its change; a selected row shows its answer diff and deltas. Static: drawn
 * once per snapshot. Every name and answer is set with textContent.
 */
import type { CompareRow, CompareSide, CompareTotals, ComparisonView } from '../compare-messages.js';
import { add, byId, el } from './dom.js';
import { fmtMs } from './format.js';

const CHANGE_LABEL: Readonly<Record<CompareRow['change'], string>> = {
  same: 'same',
  changed: 'changed',
  added: 'added in B',
  missing: 'missing in B',
};

let shown: ComparisonView | null = null;

/** Draws `view` in #compare (shown instead of the tree while the page compares). */
export function showComparison(view: ComparisonView): void {
  shown = view;
  const root = byId('compare');
  root.textContent = '';
  const title = view.a.rootName === view.b.rootName ? view.a.rootName : view.a.rootName + ' \u2194 ' + view.b.rootName;
  byId('run-title').textContent = title;
  document.title = title + ' \u00B7 groundswell compare';
  const legend = el('div', 'cmp-legend');
  for (const change of ['changed', 'added', 'missing'] as const) add(legend, el('span', 'chg-' + change, CHANGE_LABEL[change] + ' (' + view.counts[change] + ')'));
  add(legend, el('span', 'muted', view.counts.same + ' same'));
  const table = el('table', 'cmp-rows');
  table.id = 'cmp-rows';
  const head = el('tr');
  for (const [text, cls] of [['node', ''], ['A', 'cmp-run'], ['tokens', 'num'], ['cost', 'num'], ['duration', 'num'], ['B', 'cmp-run'], ['tokens', 'num'], ['cost', 'num'], ['duration', 'num']] as const) add(head, el('th', cls, text));
  add(table, add(el('thead'), head));
  const body = el('tbody');
  view.rows.forEach((row, at) => add(body, rowView(row, at)));
  add(table, body);
  const details = el('section', 'cmp-details');
  details.id = 'cmp-details';
  add(details, el('p', 'hint', 'Select a row to see its answer diff and what changed.'));
  const summary = el('div', 'cmp-summary', view.summary);
  summary.id = 'cmp-summary';
  add(
    root,
    add(el('div', 'cmp-head'), summary, totalsTable(view.a, view.b), legend),
    add(el('div', 'cmp-body'), add(el('div', 'cmp-table'), table), details),
  );
}

function totalsTable(a: CompareTotals, b: CompareTotals): HTMLTableElement {
  const table = el('table', 'cmp-totals');
  add(table, add(el('tr'), ...['', 'run', 'status', 'nodes', 'tokens', 'cost', 'duration', 'score'].map((t) => el('th', '', t))));
  for (const [side, t] of [['A', a], ['B', b]] as const) {
    add(
      table,
      add(el('tr'), el('th', '', side), el('td', '', t.runId), el('td', '', t.status), el('td', 'num', t.nodes), el('td', 'num', t.tokens.toLocaleString('en-US')), el('td', 'num', cost(t.costUsd)), el('td', 'num', fmtMs(t.durationMs)), el('td', 'num', t.score === null ? '' : t.score.toFixed(2))),
    );
  }
  return table;
}

function rowView(row: CompareRow, at: number): HTMLTableRowElement {
  const tr = el('tr', 'cmp-row chg-' + row.change);
  tr.dataset.index = String(at);
  tr.title = row.path + ' \u2014 ' + CHANGE_LABEL[row.change];
  const name = el('td', 'cmp-name');
  name.style.paddingLeft = 6 + row.depth * 14 + 'px';
  add(name, el('span', 'cmp-label', row.label), el('span', 'c-kind k-' + row.kind, row.kind));
  add(tr, name, ...sideCells(row.a, row.outcomeChanged), ...sideCells(row.b, row.outcomeChanged));
  return tr;
}

function sideCells(side: CompareSide | null, outcomeChanged: boolean): HTMLTableCellElement[] {
  if (side === null) return [el('td', 'cmp-run muted', '\u2014'), el('td', 'num'), el('td', 'num'), el('td', 'num')];
  return [el('td', 'cmp-run s-' + side.status + (outcomeChanged ? ' cmp-delta' : ''), side.status), el('td', 'num', side.tokens ? side.tokens.toLocaleString('en-US') : ''), el('td', 'num', cost(side.costUsd)), el('td', 'num', fmtMs(side.durationMs))];
}

function cost(usd: number | null): string {
  return usd === null ? '' : '$' + usd.toFixed(4);
}

function signed(value: number | null, format: (n: number) => string): string {
  if (value === null) return 'n/a';
  if (value === 0) return '0';
  return (value > 0 ? '+' : '\u2212') + format(Math.abs(value));
}

/** The selected row's details: what changed, the deltas (B minus A) and the answer diff. */
function selectRow(at: number): void {
  const row = shown?.rows[at];
  if (row === undefined) return;
  document.querySelectorAll('#cmp-rows tr.selected').forEach((tr) => tr.classList.remove('selected'));
  document.querySelector('#cmp-rows tr[data-index="' + at + '"]')?.classList.add('selected');
  const details = byId('cmp-details');
  details.textContent = '';
  const grid = el('dl', 'grid');
  const item = (term: string, value: string): void => void add(grid, el('dt', '', term), el('dd', '', value));
  item('change', CHANGE_LABEL[row.change]);
  item('outcome', (row.a?.status ?? '\u2014') + ' \u2192 ' + (row.b?.status ?? '\u2014'));
  item('tokens', signed(row.tokensDelta, (n) => n.toLocaleString('en-US')));
  item('cost', signed(row.costDelta, (n) => '$' + n.toFixed(4)));
  item('duration', signed(row.durationDelta, (n) => fmtMs(n) || '0'));
  if (row.signOffsChanged) item('sign-offs', 'changed');
  if (row.scoreA !== null || row.scoreB !== null) item('score', (row.scoreA?.toFixed(2) ?? '\u2014') + ' \u2192 ' + (row.scoreB?.toFixed(2) ?? '\u2014'));
  const name = el('h2', '', row.label);
  name.id = 'cmp-d-name';
  add(details, name, el('div', 'crumbs', row.path), grid, el('h3', '', 'Answer'));
  const diff = el('pre', 'cmp-diff');
  diff.id = 'cmp-diff';
  if (row.answerDiff === null) diff.textContent = row.answerChanged ? 'changed (no diff)' : 'same answer';
  else for (const line of row.answerDiff.split('\n')) add(diff, el('span', line.startsWith('+') ? 'diff-add' : line.startsWith('-') ? 'diff-del' : '', line + '\n'));
  add(details, diff);
}

byId('compare').addEventListener('click', (event) => {
  const target = event.target;
  const tr = target instanceof Element ? target.closest<HTMLElement>('tr.cmp-row') : null;
  if (tr?.dataset.index !== undefined) selectRow(Number(tr.dataset.index));
});
