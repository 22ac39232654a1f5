/**
 * The viewer page's script (bundled to one inline IIFE by build-page.ts): a virtualised tree of the
 * rows the server streams over SSE, filters, and a details pane fetched on demand. Every text from
 * the run (names, logs, outputs) is set with textContent, never parsed as HTML.
 */
import type { NodeDetails } from '../node-details.js';
import type { NodeRow } from '../wire-row.js';
import { fromWire } from '../wire-row.js';
import type { NodesMessage, SignalStatus, SnapshotMessage, StoredRun, ViewerMode } from '../stream-messages.js';
import type { ViewerWait } from '../viewer-wait.js';
import type { WorkflowStatus } from '../../types/status.js';
import { showComparison } from './compare-view.js';
import { showDetails, showMissing } from './details-view.js';
import { add, byId, el } from './dom.js';
import { durationOf, fmtCost, fmtMs, fmtTok, REPLAYED_NOTE, usageText } from './format.js';
import { nodes, parentOf, remove, upsert, type PageNode } from './tree-model.js';
import { showWait } from './wait-banner.js';

const ROW_H = 24;
const OPEN_DEPTH = 3;
const ICONS: Readonly<Record<WorkflowStatus, string>> = {
  completed: '\u2713',
  failed: '\u2717',
  cancelled: '\u2298',
  running: '\u25D0',
  idle: '\u25CB',
  suspended: '\u23F8',
};
const FINISHED: ReadonlySet<WorkflowStatus> = new Set<WorkflowStatus>(['completed', 'failed', 'cancelled', 'suspended']);

/** The pooled DOM of one visible row (only the rows on screen exist). */
interface RowView {
  readonly el: HTMLDivElement;
  readonly indent: HTMLSpanElement;
  readonly toggle: HTMLSpanElement;
  readonly icon: HTMLSpanElement;
  readonly name: HTMLSpanElement;
  readonly kind: HTMLSpanElement;
  /** Shown on a node a durable run replayed. */
  readonly replayed: HTMLSpanElement;
  readonly dur: HTMLSpanElement;
  readonly tok: HTMLSpanElement;
  readonly cost: HTMLSpanElement;
}

let rootId: string | null = null;
let wait: ViewerWait | null = null;
let signals: SignalStatus = { open: false, answered: null };
/** The stored run shown, for the fork command of a selected step; null for a live workflow or a file. */
let stored: StoredRun | null = null;
let mode: ViewerMode = 'empty';
let selected: string | null = null;
/** The shown details have a budget: work below the node changes its standing, holds without an event. */
let selectedHasBudget = false;
let detailsSeq = 0;
let connected = false;
/** The rows a user can see, in order, and each one's depth. */
let visibleIds: string[] = [];
let visibleDepths: number[] = [];
const pool: RowView[] = [];
const filter = { q: '', status: '', kind: '' };
const treeEl = byId('tree');
const spacer = byId('spacer');
const detailsEl = byId('details');
const emptyEl = byId('empty');

function filtering(): boolean {
  return filter.q !== '' || filter.status !== '' || filter.kind !== '';
}
function isOpen(n: PageNode, depth: number): boolean {
  return n.open === undefined ? depth < OPEN_DEPTH : n.open;
}
function matches(row: NodeRow): boolean {
  if (filter.status && row.status !== filter.status) return false;
  if (filter.kind && row.kind !== filter.kind) return false;
  return !filter.q || row.name.toLowerCase().indexOf(filter.q) >= 0;
}

// The flattened list of rows a user can see (expanded subtrees, or matches and their ancestors).
function rebuild(): void {
  visibleIds = [];
  visibleDepths = [];
  let keep: Set<string> | null = null;
  if (filtering()) {
    const kept = new Set<string>();
    nodes.forEach((n) => {
      if (!matches(n.row)) return;
      for (let cur: PageNode | undefined = n; cur && !kept.has(cur.row.id); cur = parentOf(cur)) kept.add(cur.row.id);
    });
    keep = kept;
  }
  if (rootId !== null && nodes.has(rootId)) {
    const stack: Array<readonly [string, number]> = [[rootId, 0]];
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      const [id, depth] = next;
      const n = nodes.get(id);
      if (!n || (keep && !keep.has(id))) continue;
      visibleIds.push(id);
      visibleDepths.push(depth);
      if (keep || isOpen(n, depth)) for (let i = n.children.length - 1; i >= 0; i--) stack.push([n.children[i] as string, depth + 1]);
    }
  }
  spacer.style.height = visibleIds.length * ROW_H + 'px';
  emptyEl.style.display = visibleIds.length ? 'none' : '';
  emptyEl.textContent = nodes.size ? 'No node matches the filter.' : mode === 'empty' ? 'Waiting for the run\u2026' : 'Waiting for the run\u2019s tree\u2026';
  header();
  render();
}

function makeRow(): RowView {
  const r: RowView = {
    el: el('div', 'row'),
    indent: el('span', 'indent'),
    toggle: el('span', 'toggle'),
    icon: el('span', 'icon'),
    name: el('span'),
    kind: el('span', 'c-kind'),
    replayed: el('span', 'c-replayed'),
    dur: el('span', 'c-dur'),
    tok: el('span', 'c-tok'),
    cost: el('span', 'c-cost'),
  };
  add(r.el, r.indent, r.toggle, r.icon, add(el('span', 'c-name'), r.name, r.kind, r.replayed), r.dur, r.tok, r.cost);
  return r;
}

// Only the rows on screen (and a few either side) are in the DOM: 10,000 nodes stay responsive.
function render(): void {
  const count = visibleIds.length;
  const top = treeEl.scrollTop;
  const height = treeEl.clientHeight || 800;
  const first = Math.max(0, Math.floor(top / ROW_H) - 5);
  const last = Math.min(count, Math.ceil((top + height) / ROW_H) + 5);
  const needed = Math.max(0, last - first);
  while (pool.length < needed) {
    const made = makeRow();
    pool.push(made);
    spacer.appendChild(made.el);
  }
  pool.forEach((r, i) => {
    const at = first + i;
    const id = visibleIds[at];
    const n = id === undefined || i >= needed ? undefined : nodes.get(id);
    if (id === undefined || n === undefined) {
      r.el.style.display = 'none';
      r.el.dataset.id = '';
      return;
    }
    const depth = visibleDepths[at] ?? 0;
    const row = n.row;
    r.el.style.display = '';
    r.el.style.transform = 'translateY(' + at * ROW_H + 'px)';
    r.el.dataset.id = id;
    r.el.className = 'row s-' + row.status + (id === selected ? ' selected' : '');
    r.indent.style.width = depth * 14 + 'px';
    r.toggle.textContent = n.children.length ? (filtering() || isOpen(n, depth) ? '\u25BE' : '\u25B8') : '';
    r.icon.textContent = ICONS[row.status] ?? '?';
    r.icon.title = row.status;
    r.name.textContent = row.name;
    r.kind.textContent = row.kind;
    r.kind.className = 'c-kind k-' + row.kind;
    r.replayed.textContent = row.replayed ? 'replayed' : '';
    r.replayed.title = row.replayed ? REPLAYED_NOTE : '';
    r.dur.textContent = fmtMs(durationOf(row));
    r.tok.textContent = fmtTok(row.usage);
    r.tok.title = row.usage ? usageText(row.usage) : '';
    r.cost.textContent = fmtCost(row.usage);
  });
}

function header(): void {
  const root = rootId !== null ? nodes.get(rootId) : undefined;
  // A comparison titles the page itself (compare-view.ts).
  if (mode !== 'compare') {
    byId('run-title').textContent = root ? root.row.name : '';
    document.title = root ? root.row.name + ' \u00B7 groundswell viewer' : 'groundswell viewer';
  }
  let running = 0;
  let failed = 0;
  nodes.forEach((n) => {
    if (n.row.status === 'running') running++;
    else if (n.row.status === 'failed') failed++;
  });
  let text = nodes.size.toLocaleString('en-US') + ' nodes';
  if (running) text += ' \u00B7 ' + running + ' running';
  if (failed) text += ' \u00B7 ' + failed + ' failed';
  if (root && root.row.usage) text += ' \u00B7 ' + fmtTok(root.row.usage) + ' tok' + (fmtCost(root.row.usage) ? ' \u00B7 ' + fmtCost(root.row.usage) : '');
  byId('counts').textContent = mode === 'compare' ? '' : text;
  const pill = byId('mode');
  const shown: ViewerMode | 'disconnected' = connected ? mode : 'disconnected';
  // A live run that ended is live no more: the pill says how it ended.
  const ended = shown === 'live' && root && FINISHED.has(root.row.status) ? root.row.status : null;
  pill.className = 'pill ' + (ended !== null ? 'ended' : shown);
  pill.textContent = ended ?? (shown === 'empty' ? 'no run yet' : shown);
  showWait(wait, signals);
}

// ---- selection and details (fetched on demand, never all at once) ----
function select(id: string, scroll: boolean): void {
  if (id !== selected) selectedHasBudget = false;
  selected = id;
  // The URL names the selected node, so a link opens the page on it.
  if (location.hash !== '#node=' + encodeURIComponent(id)) history.replaceState(null, '', '#node=' + encodeURIComponent(id));
  render();
  if (scroll) {
    const at = visibleIds.indexOf(id);
    if (at >= 0) {
      const y = at * ROW_H;
      if (y < treeEl.scrollTop) treeEl.scrollTop = y;
      else if (y + ROW_H > treeEl.scrollTop + treeEl.clientHeight) treeEl.scrollTop = y + ROW_H - treeEl.clientHeight;
    }
  }
  loadDetails();
}

function loadDetails(): void {
  if (selected === null) return;
  const id = selected;
  const seq = ++detailsSeq;
  fetch('/api/node/' + encodeURIComponent(id))
    .then((res) => (res.ok ? (res.json() as Promise<NodeDetails>) : null))
    .then((d) => {
      if (seq !== detailsSeq) return;
      selectedHasBudget = d !== null && d.budgets.length > 0;
      if (d) showDetails(detailsEl, d, select, stored);
      else if (!detailsEl.dataset.id || detailsEl.dataset.id !== id) showMissing(detailsEl, id);
    })
    .catch(() => {
      /* the stream's state shows the connection */
    });
}

// ---- input ----
treeEl.addEventListener('scroll', () => render());
window.addEventListener('resize', () => render());
treeEl.addEventListener('click', (event) => {
  const target = event.target;
  const rowEl = target instanceof Element ? target.closest<HTMLElement>('.row') : null;
  if (!(target instanceof Element) || !rowEl || !rowEl.dataset.id) return;
  const id = rowEl.dataset.id;
  const n = nodes.get(id);
  if (target.classList.contains('toggle') && n && n.children.length) {
    n.open = !isOpen(n, visibleDepths[visibleIds.indexOf(id)] ?? 0);
    rebuild();
    return;
  }
  select(id, false);
});
treeEl.addEventListener('keydown', (event) => {
  if (selected === null) return;
  const at = visibleIds.indexOf(selected);
  if (at < 0) return;
  const n = nodes.get(selected);
  const below = visibleIds[at + 1];
  const above = at >= 1 ? visibleIds[at - 1] : undefined;
  if (event.key === 'ArrowDown' && below !== undefined) select(below, true);
  else if (event.key === 'ArrowUp' && above !== undefined) select(above, true);
  else if (event.key === 'ArrowRight' && n && n.children.length) {
    n.open = true;
    rebuild();
  } else if (event.key === 'ArrowLeft' && n && n.children.length) {
    n.open = false;
    rebuild();
  } else return;
  event.preventDefault();
});
const query = byId<HTMLInputElement>('q');
const statusFilter = byId<HTMLSelectElement>('f-status');
const kindFilter = byId<HTMLSelectElement>('f-kind');
query.addEventListener('input', () => {
  filter.q = query.value.trim().toLowerCase();
  rebuild();
});
statusFilter.addEventListener('change', () => {
  filter.status = statusFilter.value;
  rebuild();
});
kindFilter.addEventListener('change', () => {
  filter.kind = kindFilter.value;
  rebuild();
});
byId('expand-all').addEventListener('click', () => {
  nodes.forEach((n) => {
    n.open = true;
  });
  rebuild();
});
byId('collapse-all').addEventListener('click', () => {
  nodes.forEach((n) => {
    n.open = n.row.id === rootId;
  });
  rebuild();
});
// Running nodes' durations tick. A selected budget is read again too: what requests in flight
// reserve changes its standing without an event.
setInterval(() => {
  if (mode !== 'live') return;
  render();
  const root = rootId !== null ? nodes.get(rootId) : undefined;
  if (selectedHasBudget && root && !FINISHED.has(root.row.status)) loadDetails();
}, 1000);

// The node a link names (#node=<id>), or null. A malformed %-escape names no node: it must not
// throw, since this runs inside the first snapshot's handler and would cancel the first draw.
function linkedId(): string | null {
  const m = /^#node=(.+)$/.exec(location.hash);
  if (m?.[1] === undefined) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return null;
  }
}

// A link to a node (#node=<id>): select it and open its ancestors.
function openLinked(): void {
  const id = linkedId();
  const n = id !== null ? nodes.get(id) : undefined;
  if (id === null || !n) return;
  for (let p = parentOf(n); p; p = parentOf(p)) p.open = true;
  selected = id;
  setTimeout(() => select(id, true), 0);
}

// ---- the stream: a snapshot, then batches of changed rows ----
const stream = new EventSource('/api/events');
stream.addEventListener('snapshot', (e) => {
  const d = JSON.parse(e.data as string) as SnapshotMessage;
  connected = true;
  nodes.clear();
  rootId = d.rootId;
  mode = d.mode;
  wait = d.wait || null;
  signals = d.signals;
  stored = d.stored;
  for (const row of d.rows) upsert(fromWire(row, d.timeBase));
  // Two runs side by side replace the tree (and come back to it when a run is shown again).
  document.body.classList.toggle('comparing', d.comparison !== null);
  byId('compare').hidden = d.comparison === null;
  if (d.comparison === null && selected === null) openLinked();
  rebuild();
  if (d.comparison !== null) showComparison(d.comparison);
  // When the first tree was on screen, in ms since navigation started (tests read it).
  if (!document.body.dataset.ready) document.body.dataset.firstRenderMs = String(Math.round(performance.now()));
  document.body.dataset.ready = '1';
  loadDetails();
});
stream.addEventListener('nodes', (e) => {
  const d = JSON.parse(e.data as string) as NodesMessage;
  if (d.removed === 'all') nodes.clear();
  else d.removed.forEach(remove);
  for (const row of d.upserted) upsert(fromWire(row, d.timeBase));
  rootId = d.rootId;
  mode = d.mode;
  wait = d.wait || null;
  signals = d.signals;
  stored = d.stored;
  rebuild();
  if (selected !== null && (d.touched === null || d.touched.indexOf(selected) >= 0 || d.upserted.some((r) => r[0] === selected))) loadDetails();
});
stream.addEventListener('open', () => {
  connected = true;
  header();
});
stream.addEventListener('error', () => {
  connected = false;
  header();
});
