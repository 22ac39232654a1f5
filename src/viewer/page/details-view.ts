import type { NodeDetails } from '../node-details.js';
import type { StoredRun } from '../stream-messages.js';
import { add, el } from './dom.js';
import { forkCommand, stepPath } from './fork-command.js';
import { durationOf, fmtAmount, fmtCost, fmtMs, pretty, REPLAYED_NOTE, time, usageText } from './format.js';
import { nodes, type PageNode } from './tree-model.js';

/** Selects a node in the tree (and scrolls to it when asked). */
export type SelectNode = (id: string, scroll: boolean) => void;

export function showMissing(detailsEl: HTMLElement, id: string): void {
  detailsEl.replaceChildren(el('p', 'hint', 'Node ' + id + ' is no longer in the tree (pruned by retention or replaced).'));
}

function section(title: string, id?: string): HTMLElement {
  const s = el('section');
  if (id) s.id = id;
  add(s, el('h3', '', title));
  return s;
}

/** Label and value pairs; a value that is undefined or '' leaves its pair out. */
function grid(pairs: ReadonlyArray<readonly [string, unknown]>): HTMLDListElement {
  const dl = el('dl', 'grid');
  for (const [label, value] of pairs) if (value !== undefined && value !== '') add(dl, el('dt', '', label), el('dd', '', value));
  return dl;
}

// Where the time went: the node and its children as bars on the node's own time span.
function timeline(d: NodeDetails, select: SelectNode): HTMLElement | null {
  const n = nodes.get(d.id);
  if (!n || !n.children.length || typeof n.row.startTime !== 'number') return null;
  const start = n.row.startTime;
  const span = durationOf(n.row);
  if (span === undefined || !(span > 0)) return null;
  const kids = n.children.map((id) => nodes.get(id)).filter((k): k is PageNode => k !== undefined && typeof k.row.startTime === 'number');
  kids.sort((a, b) => (a.row.startTime ?? 0) - (b.row.startTime ?? 0));
  const shown = kids.slice(0, 200);
  const box = section('Timeline', 'd-timeline');
  for (const k of [n, ...shown]) {
    const dur = durationOf(k.row) || 0;
    const line = el('div', 'tl-row');
    const track = el('div', 'tl-track');
    const bar = el('div', 'tl-bar s-' + k.row.status);
    bar.style.left = Math.max(0, Math.min(100, (((k.row.startTime ?? start) - start) / span) * 100)).toFixed(1) + '%';
    bar.style.width = Math.max(0, Math.min(100, (dur / span) * 100)).toFixed(1) + '%';
    bar.title = k.row.name + ' \u00B7 ' + fmtMs(dur);
    line.dataset.id = k.row.id;
    add(line, el('span', 'tl-name', k.row.name), add(track, bar));
    line.addEventListener('click', () => select(k.row.id, true));
    add(box, line);
  }
  if (kids.length > shown.length) add(box, el('div', 'muted', kids.length - shown.length + ' more children not drawn'));
  return box;
}

function errorSection(error: NonNullable<NodeDetails['error']>): HTMLElement {
  const es = section('Error', 'd-error-section');
  const box = el('div', 'error-box');
  box.id = 'd-error';
  let at: HTMLElement = box;
  let depth = 0;
  for (let err: NodeDetails['error'] | undefined = error; err && depth < 8; err = err.cause, depth++) {
    const part = el('div', depth ? 'cause' : '', (depth ? 'caused by ' : '') + err.name + ': ' + err.message);
    add(at, part);
    at = part;
  }
  return add(es, box);
}

const METERED = ['usd', 'tokens', 'modelRequests', 'toolCalls'] as const;

// Each budget set on the node: a row per limit with what is spent and what work in flight holds,
// then the budgets' warnings and refusals.
function budgetSection(d: NodeDetails, elapsed: number | undefined): HTMLElement {
  const bs = section('Budget', 'd-budget');
  for (const b of d.budgets) {
    const card = el('div', 'card budget');
    const table = el('table', 'amounts');
    const headRow = el('tr');
    for (const h of ['limit', 'spent', 'reserved', 'of', 'used']) add(headRow, el('th', '', h));
    add(table, headRow);
    for (const dimension of METERED) {
      const limit = b.limits[dimension];
      if (limit === undefined) continue;
      const spent = b.spent[dimension];
      const reserved = b.reserved[dimension];
      const share = limit > 0 ? Math.round(((spent + reserved) / limit) * 100) + '%' : '';
      const tr = el('tr', spent + reserved >= b.warnAt * limit ? 'near' : '');
      tr.dataset.dimension = dimension;
      for (const v of [dimension, fmtAmount(dimension, spent), fmtAmount(dimension, reserved), fmtAmount(dimension, limit), share]) add(tr, el('td', '', v));
      add(table, tr);
    }
    const wallMs = b.limits.wallMs;
    if (wallMs !== undefined) {
      const tr = el('tr');
      tr.dataset.dimension = 'wallMs';
      const share = elapsed !== undefined && wallMs > 0 ? Math.round((elapsed / wallMs) * 100) + '%' : '';
      for (const v of ['wallMs', elapsed !== undefined ? fmtAmount('wallMs', elapsed) : '', '', fmtAmount('wallMs', wallMs), share]) add(tr, el('td', '', v));
      add(table, tr);
    }
    const note = b.exceeded === undefined ? null : el('div', 'bad', b.exceeded === 'wallMs' ? 'time ran out' : 'refused work at its ' + b.exceeded + ' limit');
    add(card, el('div', 'title', 'budget (' + b.owner + ')'), table, note, el('div', 'muted', 'warns at ' + Math.round(b.warnAt * 100) + '%'));
    add(bs, card);
  }
  if (d.budgetEvents.length) {
    const list = el('ul');
    list.id = 'd-budget-events';
    for (const e of d.budgetEvents) {
      const amount = (v: number): string => fmtAmount(e.dimension, v);
      const head = e.type === 'budgetWarning' ? '\u26A0 warning at ' + Math.round(e.warnAt * 100) + '%: ' : '\u2717 exceeded: ';
      const text = head + e.dimension + ' ' + amount(e.spent) + ' spent + ' + amount(e.reserved) + ' reserved of ' + amount(e.limit) + (e.needed > 0 ? ', needed ' + amount(e.needed) : '');
      add(list, el('li', e.type === 'budgetWarning' ? 'warn' : 'bad', text + ' \u00B7 ' + time(e.timestamp)));
    }
    add(bs, el('div', 'muted', 'warnings and refusals'), list);
  }
  return bs;
}

function promptSection(d: NodeDetails): HTMLElement {
  const pa = section('Prompt and answer', 'd-prompt');
  const p = d.prompt;
  const a = d.answer;
  add(
    pa,
    grid([
      ['agent', p?.agentName || a?.agentName],
      ['model', p?.model || a?.model],
      ['prompt', d.name],
      ['stop reason', a?.stopReason || undefined],
      ['turns', a?.turns],
      ['served', a?.cached ? 'from the prompt cache' : a?.replayed ? 'replayed from the run store' : undefined],
      ['call usage', a?.usage ? usageText(a.usage) : undefined],
    ]),
  );
  if (a?.output !== undefined) {
    const ans = el('pre', '', pretty(a.output));
    ans.id = 'd-answer';
    add(pa, el('div', 'muted', 'answer'), ans);
  }
  if (a?.error) add(pa, el('pre', 'bad', a.error.name + ': ' + a.error.message));
  return pa;
}

function conversationSection(d: NodeDetails): HTMLElement {
  const cv = section('Conversation', 'd-conversation');
  add(cv, el('div', 'card', 'user \u00B7 ' + d.name));
  for (const t of d.turns) {
    const turn = el('div', 'card turn');
    add(turn, el('div', 'title', 'turn ' + t.turn + ' \u00B7 ' + t.model + ' \u00B7 ' + fmtMs(t.duration) + (t.stopReason ? ' \u00B7 ' + t.stopReason : '')));
    for (const u of t.tools) {
      add(
        turn,
        el('div', u.isError ? 'bad' : 'muted', 'tool use ' + u.toolName + (u.isError ? ' (error)' : '')),
        el('pre', 'tool-input', pretty(u.input)),
        el('div', 'muted', 'result'),
        el('pre', 'tool-output', pretty(u.output)),
      );
    }
    add(cv, turn);
  }
  const output = d.answer?.output;
  if (output !== undefined) add(cv, el('div', 'card', 'answer \u00B7 ' + (output.length > 200 ? output.slice(0, 200) + '\u2026' : output)));
  const table = el('table', 'requests');
  table.id = 'd-requests';
  const headRow = el('tr');
  for (const h of ['turn', 'model', 'duration', 'stop', 'tokens in', 'tokens out', 'cost']) add(headRow, el('th', '', h));
  add(table, headRow);
  for (const t of d.turns) {
    const tr = el('tr');
    const cells = [
      t.turn,
      t.model + (t.requestModel !== t.model ? ' (asked ' + t.requestModel + ')' : ''),
      fmtMs(t.duration),
      t.stopReason || '',
      t.usage.inputTokens.toLocaleString('en-US'),
      t.usage.outputTokens.toLocaleString('en-US'),
      fmtCost(t.usage),
    ];
    for (const v of cells) add(tr, el('td', '', v));
    add(table, tr);
  }
  add(cv, el('div', 'muted', 'requests'), table);
  return cv;
}

function checkpointSection(c: NonNullable<NodeDetails['checkpoint']>): HTMLElement {
  const cp = c.checkpoint;
  const cs = section('Trajectory checkpoint (latest)', 'd-checkpoint');
  const head = el('div');
  const rev = el('span', 'assess', 'revision ' + c.revision);
  rev.id = 'd-checkpoint-revision';
  const as = el('span', 'assess a-' + c.assessment, c.assessment);
  as.id = 'd-checkpoint-assessment';
  add(head, rev, document.createTextNode(' \u00B7 '), as, el('span', 'muted', c.injected ? ' \u00B7 injected' : ' \u00B7 not injected'));
  add(
    cs,
    head,
    grid([
      ['goal', cp.goal],
      ['turn', cp.turn],
      ['trigger', cp.trigger],
      ['next action', cp.nextAction],
      ['success evidence', cp.successEvidence],
      ['situation', cp.situationAssessment],
      ['grounding', cp.groundingSource],
    ]),
  );
  if (cp.groundedFacts && cp.groundedFacts.length) {
    const facts = el('ul');
    for (const f of cp.groundedFacts) {
      add(facts, el('li', '', f.statement + ' ' + f.evidence + (f.outcome ? ' (' + f.outcome + ')' : '') + (f.freshness !== 'fresh' ? ' [' + f.freshness + ']' : '')));
    }
    add(cs, el('div', 'muted', 'grounded facts'), facts);
  }
  const lists: ReadonlyArray<readonly [string, readonly string[] | undefined]> = [
    ['completed work', cp.completedWork],
    ['open questions', cp.openQuestions],
    ['do not repeat', cp.doNotRepeat],
  ];
  for (const [label, items] of lists) {
    if (!items || !items.length) continue;
    const list = el('ul');
    for (const t of items) add(list, el('li', '', t));
    add(cs, el('div', 'muted', label), list);
  }
  return cs;
}

function signOffSection(signOffs: NodeDetails['signOffs']): HTMLElement {
  const so = section('Goal sign-offs', 'd-signoffs');
  for (const s of signOffs) {
    const card = el('div', 'card');
    add(
      card,
      el('div', 'title ' + (s.verdict === 'accept' ? 'ok' : 'bad'), (s.verdict === 'accept' ? '\u2713 accepted: ' : '\u2717 rejected: ') + s.goal),
      s.missing ? el('div', '', 'missing: ' + s.missing) : null,
      s.judgeFailed ? el('div', 'bad', 'the judge failed') : null,
      el('div', 'muted', s.planPath + ' \u00B7 ' + time(s.timestamp)),
    );
    add(so, card);
  }
  return so;
}

function toolsSection(d: NodeDetails): HTMLElement {
  const ts = section('Tool calls', 'd-tools');
  for (const t of d.tools) {
    const card = el('div', 'card tool');
    const state = t.blockedReason ? 'blocked: ' + t.blockedReason : t.isError ? 'error' : 'ok';
    add(
      card,
      el('div', 'title', t.toolName),
      el('div', t.isError ? 'bad' : 'muted', state + (t.outcome ? ' \u00B7 verifier ' + t.outcome : '') + ' \u00B7 ' + fmtMs(t.duration)),
      el('div', 'muted', 'input'),
      el('pre', 'tool-input', pretty(t.input)),
      el('div', 'muted', 'output'),
      el('pre', 'tool-output', pretty(t.output)),
    );
    add(ts, card);
  }
  for (const m of d.mcpCalls) {
    const card = el('div', 'card tool');
    add(
      card,
      el('div', 'title', m.server + ' \u00B7 ' + (m.toolName || '')),
      el('div', m.isError ? 'bad' : 'muted', (m.isError ? 'error' : 'ok') + ' \u00B7 ' + fmtMs(m.duration)),
      el('div', 'muted', 'input'),
      el('pre', 'tool-input', pretty(m.input)),
      el('div', 'muted', 'output'),
      el('pre', 'tool-output', pretty(m.output)),
    );
    add(ts, card);
  }
  return ts;
}

/** The details pane's "Fork here" line: for a step of a stored run that has started, else null. */
function forkLine(id: string, stored: StoredRun | null): HTMLElement | null {
  const n = nodes.get(id);
  // Only a step is keyed in the run's journal: a fork starts at one.
  if (stored === null || !n || n.row.kind !== 'step' || n.row.status === 'idle') return null;
  const command = forkCommand(stored, stepPath(n));
  const text = el('code', 'fork-command', command);
  text.id = 'd-fork-command';
  const copy = el('button', '', 'Copy');
  copy.type = 'button';
  copy.id = 'd-fork-copy';
  copy.addEventListener('click', () => {
    // Loopback is a secure context, so the clipboard is there; where it is refused, select the text to copy by hand.
    const selectText = (): void => {
      window.getSelection()?.selectAllChildren(text);
      copy.textContent = 'Selected: copy it';
    };
    if (!navigator.clipboard) return selectText();
    navigator.clipboard.writeText(command).then(() => (copy.textContent = 'Copied'), selectText);
  });
  const line = add(el('div', 'fork-line'), el('span', 'muted', 'Fork here'), text, copy);
  line.id = 'd-fork';
  line.title = 'A new run: what this run did before the step is copied, and the step and everything after it run live with the current code.';
  return line;
}

/** The details pane for one node, each part only when the node has it (`stored`: the stored run shown, if any). */
export function showDetails(detailsEl: HTMLElement, d: NodeDetails, select: SelectNode, stored: StoredRun | null): void {
  const out: HTMLElement[] = [];
  // The same node read again (a live budget is, each second) keeps its events list open or shut.
  const eventsOpen = detailsEl.dataset.id === d.id && detailsEl.querySelector('#d-events details')?.hasAttribute('open') === true;
  detailsEl.dataset.id = d.id;
  const crumbs = el('div', 'crumbs');
  for (const p of d.path) {
    const a = el('a', '', p.name);
    a.addEventListener('click', () => select(p.id, true));
    add(crumbs, a, document.createTextNode(' \u203A '));
  }
  add(crumbs, el('span', '', d.name));
  const title = el('h2', '', d.name);
  title.id = 'd-name';
  out.push(crumbs, title);
  const row = nodes.get(d.id);
  const sub = row?.row.usage;
  out.push(
    grid([
      ['kind', d.kind],
      ['status', d.status],
      ['id', d.id],
      ['replayed', d.replayed ? REPLAYED_NOTE : undefined],
      ['started', time(d.startTime)],
      ['ended', time(d.endTime)],
      ['duration', fmtMs(typeof d.duration === 'number' ? d.duration : row ? durationOf(row.row) : undefined)],
      ['tokens (own)', d.usage ? usageText(d.usage) : undefined],
      ['tokens (subtree)', sub ? usageText(sub) : undefined],
    ]),
  );
  const fork = forkLine(d.id, stored);
  if (fork) out.push(fork);
  if (d.error) out.push(errorSection(d.error));
  if (d.budgets.length || d.budgetEvents.length) out.push(budgetSection(d, typeof d.duration === 'number' ? d.duration : row ? durationOf(row.row) : undefined));
  if (d.why) {
    const why = section('Why', 'd-why-section');
    const line = el('div', 'why', 'why ' + d.why);
    line.id = 'd-why';
    out.push(add(why, line));
  }
  if (d.prompt || d.answer) out.push(promptSection(d));
  if (d.turns.length) out.push(conversationSection(d));
  if (d.checkpoint) out.push(checkpointSection(d.checkpoint));
  if (d.signOffs.length) out.push(signOffSection(d.signOffs));
  if (d.tools.length || d.mcpCalls.length) out.push(toolsSection(d));
  const tl = timeline(d, select);
  if (tl) out.push(tl);
  const st = section('State', 'd-state-section');
  const state = el('pre', '', d.stateSnapshot && Object.keys(d.stateSnapshot).length ? pretty(d.stateSnapshot) : 'no observed state');
  state.id = 'd-state';
  out.push(add(st, state));
  const ls = section('Logs (' + d.logs.length + (d.dropped.logs ? ', ' + d.dropped.logs + ' dropped' : '') + ')', 'd-logs');
  if (!d.logs.length) add(ls, el('div', 'muted', 'no logs'));
  for (const l of d.logs) {
    add(ls, el('div', 'log lv-' + l.level, time(l.timestamp) + '  ' + l.level.toUpperCase() + '  ' + l.message + (l.data !== undefined ? '  ' + JSON.stringify(l.data) : '')));
  }
  out.push(ls);
  const ev = el('details');
  ev.open = eventsOpen;
  add(ev, el('summary', '', 'Events (' + d.events.length + (d.dropped.events ? ', ' + d.dropped.events + ' dropped' : '') + ')'));
  for (const e of d.events) add(ev, el('pre', '', e.type + '  ' + time(e.timestamp) + '\n' + pretty(e)));
  out.push(add(section('Events', 'd-events'), ev));
  detailsEl.replaceChildren(...out);
}
