/**
 * The viewer page: one HTML document with inline CSS and vanilla JS, bundled as a string so the
 * package ships it with no build step, no CDN and no network beyond this server. Every text from
 * the run (names, logs, outputs) is set with textContent, never parsed as HTML; the CSP nonce
 * refuses any script the page did not bring itself. Written without template literals inside, so
 * this file needs no escaping.
 */
const PAGE = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>groundswell viewer</title>
<style nonce="__NONCE__">
:root { --bg: #f7f7f5; --panel: #fff; --line: #e3e3df; --text: #1f2328; --muted: #6b7078; --sel: #dbeafe;
  --ok: #1a7f37; --bad: #cf222e; --run: #0969da; --idle: #8c959f; --warn: #9a6700; }
* { box-sizing: border-box; }
html, body { height: 100%; margin: 0; }
body { font: 13px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--text); background: var(--bg);
  display: flex; flex-direction: column; }
header { display: flex; align-items: center; gap: 10px; padding: 8px 12px; background: #24292f; color: #fff; flex-wrap: wrap; }
header .brand { font-weight: 700; letter-spacing: .3px; }
header #run-title { font-weight: 600; }
header .spacer { flex: 1; }
header input, header select, header button { font: inherit; border-radius: 4px; border: 1px solid #57606a; background: #32383f; color: #fff; padding: 3px 7px; }
header input { width: 200px; }
header button { cursor: pointer; }
.pill { display: inline-block; padding: 0 7px; border-radius: 9px; font-size: 11px; font-weight: 600; text-transform: uppercase; }
.pill.live { background: #2da44e; color: #fff; } .pill.stored { background: #6e7781; color: #fff; }
.pill.empty, .pill.disconnected { background: #bf8700; color: #fff; } .pill.ended { background: #6e7781; color: #fff; }
header a.button { color: #fff; text-decoration: none; border: 1px solid #57606a; background: #32383f; border-radius: 4px; padding: 3px 7px; }
table.requests { border-collapse: collapse; font-variant-numeric: tabular-nums; } table.requests td, table.requests th { border-bottom: 1px solid var(--line); padding: 2px 8px; text-align: left; }
.tl-row { display: flex; align-items: center; height: 18px; font-size: 12px; }
.tl-name { flex: none; width: 34%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; padding-right: 6px; }
.tl-track { flex: 1; position: relative; height: 12px; background: #f6f8fa; }
.tl-bar { position: absolute; top: 0; bottom: 0; min-width: 1px; background: var(--run); opacity: .75; }
.tl-bar.s-failed { background: var(--bad); } .tl-bar.s-suspended { background: var(--warn); } .tl-bar.s-completed { background: var(--ok); }
#wait { padding: 8px 12px; background: #fff8c5; border-bottom: 1px solid #eac54f; }
#wait pre { max-height: 160px; background: #fffdf0; }
.error-box { border: 1px solid var(--bad); background: #fff5f5; border-radius: 4px; padding: 6px 8px; }
.error-box .cause { margin-top: 4px; padding-left: 12px; border-left: 2px solid #f3c4c4; }
#counts { color: #c9d1d9; font-size: 12px; }
main { flex: 1; display: flex; min-height: 0; }
#tree-pane { flex: 11; display: flex; flex-direction: column; min-width: 0; border-right: 1px solid var(--line); background: var(--panel); }
#tree-head, .row { display: flex; align-items: center; height: 24px; padding: 0 8px; white-space: nowrap; }
#tree-head { color: var(--muted); font-size: 11px; text-transform: uppercase; border-bottom: 1px solid var(--line); background: #fafafa; }
#tree { flex: 1; overflow: auto; position: relative; outline: none; }
#spacer { position: relative; width: 100%; }
.row { position: absolute; left: 0; right: 0; top: 0; cursor: default; border-bottom: 1px solid #f3f3f1; }
.row:hover { background: #f6f8fa; }
.row.selected { background: var(--sel); }
.row .indent { flex: none; }
.row .toggle { flex: none; width: 16px; text-align: center; color: var(--muted); cursor: pointer; user-select: none; }
.row .icon { flex: none; width: 18px; text-align: center; font-weight: 700; }
.c-name { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; }
.c-kind { flex: none; font-size: 10.5px; padding: 0 5px; margin-left: 6px; border-radius: 3px; background: #eaeef2; color: #57606a; }
.k-workflow { background: #efe6ff; color: #6639ba; } .k-agentPrompt { background: #fff1d6; color: #8a5300; }
.k-toolCall, .k-mcpCall { background: #ddf4ff; color: #0550ae; } .k-reflection { background: #ffe6ef; color: #a0174f; }
.c-dur, .c-tok, .c-cost { flex: none; text-align: right; font-variant-numeric: tabular-nums; color: var(--muted); }
.c-dur { width: 76px; } .c-tok { width: 92px; } .c-cost { width: 74px; }
.s-completed .icon { color: var(--ok); } .s-failed .icon { color: var(--bad); } .s-failed .c-name { color: var(--bad); }
.s-running .icon { color: var(--run); } .s-cancelled .icon, .s-idle .icon { color: var(--idle); } .s-suspended .icon { color: var(--warn); }
#details { flex: 9; overflow: auto; padding: 12px 16px; min-width: 0; }
#details .hint { color: var(--muted); }
#details h2 { font-size: 16px; margin: 0 0 2px; word-break: break-word; }
#details h3 { font-size: 12px; text-transform: uppercase; letter-spacing: .4px; color: var(--muted); margin: 16px 0 6px; border-bottom: 1px solid var(--line); padding-bottom: 3px; }
.crumbs { color: var(--muted); font-size: 12px; margin-bottom: 8px; }
.crumbs a { color: var(--run); cursor: pointer; text-decoration: none; }
dl.grid { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 8px 0; }
dl.grid dt { color: var(--muted); } dl.grid dd { margin: 0; word-break: break-word; }
pre { background: #f6f8fa; border: 1px solid var(--line); border-radius: 4px; padding: 6px 8px; margin: 4px 0; white-space: pre-wrap; word-break: break-word; max-height: 260px; overflow: auto; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
.why { background: #fff8c5; border: 1px solid #eac54f; border-radius: 4px; padding: 5px 8px; }
.card { border: 1px solid var(--line); border-radius: 5px; padding: 6px 9px; margin: 6px 0; background: var(--panel); }
.card .title { font-weight: 600; }
.bad { color: var(--bad); } .ok { color: var(--ok); } .muted { color: var(--muted); }
.assess { font-weight: 600; } .a-on_trajectory { color: var(--ok); } .a-recovery_required, .a-blocked { color: var(--bad); } .a-verification_due { color: var(--warn); }
ul { margin: 4px 0; padding-left: 18px; }
.log { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap; word-break: break-word; }
.lv-warn { color: var(--warn); } .lv-error { color: var(--bad); }
#empty { position: absolute; top: 20px; left: 0; right: 0; text-align: center; color: var(--muted); }
</style>
</head>
<body>
<header>
  <span class="brand">groundswell</span>
  <span id="run-title"></span>
  <span id="mode" class="pill empty">connecting</span>
  <span id="counts"></span>
  <span class="spacer"></span>
  <input id="q" type="search" placeholder="Filter by name" aria-label="Filter by name">
  <select id="f-status" aria-label="Status"><option value="">any status</option><option>running</option><option>completed</option><option>failed</option><option>cancelled</option><option value="suspended">waiting (suspended)</option><option>idle</option></select>
  <select id="f-kind" aria-label="Kind"><option value="">any kind</option><option>workflow</option><option>step</option><option>task</option><option>agentPrompt</option><option>toolCall</option><option>mcpCall</option><option>reflection</option></select>
  <button id="expand-all" type="button">Expand all</button>
  <button id="collapse-all" type="button">Collapse</button>
  <a id="download" class="button" href="/api/run" download="run.json" title="The run as an export (JSON), to view again later">Download</a>
</header>
<div id="wait" hidden></div>
<main>
  <section id="tree-pane">
    <div id="tree-head"><span class="c-name">node</span><span class="c-dur">duration</span><span class="c-tok">tokens</span><span class="c-cost">cost</span></div>
    <div id="tree" tabindex="0"><div id="spacer"></div><div id="empty">Waiting for the run&hellip;</div></div>
  </section>
  <section id="details"><p class="hint">Select a node to see its state, logs, prompt and answer, tool calls, checkpoint and sign-offs.</p></section>
</main>
<script nonce="__NONCE__">
(function () {
  'use strict';
  var ROW_H = 24, OPEN_DEPTH = 3;
  var ICONS = { completed: '\u2713', failed: '\u2717', cancelled: '\u2298', running: '\u25D0', idle: '\u25CB', suspended: '\u23F8' };
  var FINISHED = { completed: 1, failed: 1, cancelled: 1, suspended: 1 };
  var nodes = new Map();
  var rootId = null, wait = null, mode = 'empty', selected = null, visible = [], pool = [], detailsSeq = 0, connected = false;
  var filter = { q: '', status: '', kind: '' };
  var treeEl = document.getElementById('tree'), spacer = document.getElementById('spacer');
  var detailsEl = document.getElementById('details'), emptyEl = document.getElementById('empty');

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent) { for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]); return parent; }

  function fmtMs(ms) {
    if (ms === undefined || ms === null || !isFinite(ms)) return '';
    // Durations are whole milliseconds: 0 means it took less than one.
    if (ms < 1) return '<1ms';
    if (ms < 1000) return Math.round(ms) + 'ms';
    if (ms < 60000) return (ms / 1000).toFixed(2) + 's';
    var s = Math.round(ms / 1000);
    return Math.floor(s / 60) + 'm' + String(s % 60).padStart(2, '0') + 's';
  }
  function tokens(u) { return u ? u.inputTokens + u.outputTokens : 0; }
  function fmtTok(u) { var t = tokens(u); return t ? t.toLocaleString('en-US') : ''; }
  function fmtCost(u) { return u && typeof u.costUsd === 'number' ? '$' + u.costUsd.toFixed(4) : ''; }
  function usageText(u) {
    if (!u) return 'none';
    var s = u.inputTokens.toLocaleString('en-US') + ' in / ' + u.outputTokens.toLocaleString('en-US') + ' out';
    if (u.cacheReadInputTokens) s += ', ' + u.cacheReadInputTokens.toLocaleString('en-US') + ' cache read';
    if (u.cacheCreationInputTokens) s += ', ' + u.cacheCreationInputTokens.toLocaleString('en-US') + ' cache write';
    if (typeof u.costUsd === 'number') s += ' \u00B7 $' + u.costUsd.toFixed(4);
    return s;
  }
  function durationOf(row) {
    if (typeof row.duration === 'number') return row.duration;
    if (row.status === 'running' && typeof row.startTime === 'number') return Date.now() - row.startTime;
    return undefined;
  }
  function pretty(value) {
    if (typeof value === 'string') {
      try { return JSON.stringify(JSON.parse(value), null, 2); } catch (e) { return value; }
    }
    try { return JSON.stringify(value, null, 2); } catch (e) { return String(value); }
  }
  function time(ts) { return typeof ts === 'number' ? new Date(ts).toISOString().replace('T', ' ').replace('Z', '') : ''; }

  // ---- the tree model: rows from the server, children in order ----
  function upsert(row) {
    var n = nodes.get(row.id);
    if (!n) {
      n = { row: row, children: [], open: undefined };
      nodes.set(row.id, n);
      link(n);
      return;
    }
    var before = n.row.parentId;
    n.row = row;
    if (before !== row.parentId) { unlink(row.id, before); link(n); }
  }
  function link(n) { var p = n.row.parentId !== null ? nodes.get(n.row.parentId) : null; if (p) p.children.push(n.row.id); }
  function unlink(id, parentId) {
    var p = parentId !== null ? nodes.get(parentId) : null;
    if (!p) return;
    var i = p.children.indexOf(id);
    if (i >= 0) p.children.splice(i, 1);
  }
  function remove(id) { var n = nodes.get(id); if (n) { unlink(id, n.row.parentId); nodes.delete(id); } }
  function isOpen(n, depth) { return n.open === undefined ? depth < OPEN_DEPTH : n.open; }
  function matches(row) {
    if (filter.status && row.status !== filter.status) return false;
    if (filter.kind && row.kind !== filter.kind) return false;
    return !filter.q || row.name.toLowerCase().indexOf(filter.q) >= 0;
  }

  // The flattened list of rows a user can see (expanded subtrees, or matches and their ancestors).
  function rebuild() {
    visible = [];
    var keep = null;
    if (filter.q || filter.status || filter.kind) {
      keep = new Set();
      nodes.forEach(function (n) {
        if (!matches(n.row)) return;
        for (var cur = n; cur && !keep.has(cur.row.id); cur = cur.row.parentId !== null ? nodes.get(cur.row.parentId) : null) keep.add(cur.row.id);
      });
    }
    if (rootId !== null && nodes.has(rootId)) {
      var stack = [rootId, 0];
      while (stack.length) {
        var depth = stack.pop(), id = stack.pop(), n = nodes.get(id);
        if (!n || (keep && !keep.has(id))) continue;
        visible.push(id, depth);
        if (keep || isOpen(n, depth)) for (var i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i], depth + 1);
      }
    }
    spacer.style.height = (visible.length / 2) * ROW_H + 'px';
    emptyEl.style.display = visible.length ? 'none' : '';
    emptyEl.textContent = nodes.size ? 'No node matches the filter.' : (mode === 'empty' ? 'Waiting for the run\u2026' : 'Waiting for the run\u2019s tree\u2026');
    header();
    render();
  }

  function makeRow() {
    var r = { el: el('div', 'row'), indent: el('span', 'indent'), toggle: el('span', 'toggle'), icon: el('span', 'icon'),
      name: el('span', 'c-name'), kind: el('span', 'c-kind'), dur: el('span', 'c-dur'), tok: el('span', 'c-tok'), cost: el('span', 'c-cost') };
    var nameBox = el('span', 'c-name');
    add(nameBox, r.name, r.kind);
    r.name.className = '';
    add(r.el, r.indent, r.toggle, r.icon, nameBox, r.dur, r.tok, r.cost);
    return r;
  }
  function render() {
    var count = visible.length / 2;
    var top = treeEl.scrollTop, height = treeEl.clientHeight || 800;
    var first = Math.max(0, Math.floor(top / ROW_H) - 5), last = Math.min(count, Math.ceil((top + height) / ROW_H) + 5);
    var needed = Math.max(0, last - first);
    while (pool.length < needed) { var made = makeRow(); pool.push(made); spacer.appendChild(made.el); }
    for (var i = 0; i < pool.length; i++) {
      var r = pool[i];
      if (i >= needed) { r.el.style.display = 'none'; r.el.dataset.id = ''; continue; }
      var at = first + i, id = visible[at * 2], depth = visible[at * 2 + 1], n = nodes.get(id), row = n.row;
      r.el.style.display = '';
      r.el.style.transform = 'translateY(' + at * ROW_H + 'px)';
      r.el.dataset.id = id;
      r.el.className = 'row s-' + row.status + (id === selected ? ' selected' : '');
      r.indent.style.width = depth * 14 + 'px';
      r.toggle.textContent = n.children.length ? (filter.q || filter.status || filter.kind || isOpen(n, depth) ? '\u25BE' : '\u25B8') : '';
      r.icon.textContent = ICONS[row.status] || '?';
      r.icon.title = row.status;
      r.name.textContent = row.name;
      r.kind.textContent = row.kind;
      r.kind.className = 'c-kind k-' + row.kind;
      r.dur.textContent = fmtMs(durationOf(row));
      r.tok.textContent = fmtTok(row.usage);
      r.tok.title = row.usage ? usageText(row.usage) : '';
      r.cost.textContent = fmtCost(row.usage);
    }
  }
  function header() {
    var root = rootId !== null ? nodes.get(rootId) : null;
    document.getElementById('run-title').textContent = root ? root.row.name : '';
    document.title = root ? root.row.name + ' \u00B7 groundswell viewer' : 'groundswell viewer';
    var running = 0, failed = 0;
    nodes.forEach(function (n) { if (n.row.status === 'running') running++; else if (n.row.status === 'failed') failed++; });
    var text = nodes.size.toLocaleString('en-US') + ' nodes';
    if (running) text += ' \u00B7 ' + running + ' running';
    if (failed) text += ' \u00B7 ' + failed + ' failed';
    if (root && root.row.usage) text += ' \u00B7 ' + fmtTok(root.row.usage) + ' tok' + (fmtCost(root.row.usage) ? ' \u00B7 ' + fmtCost(root.row.usage) : '');
    document.getElementById('counts').textContent = text;
    var pill = document.getElementById('mode'), shown = connected ? mode : 'disconnected';
    // A live run that ended is live no more: the pill says how it ended.
    var ended = shown === 'live' && root && FINISHED[root.row.status];
    pill.className = 'pill ' + (ended ? 'ended' : shown);
    pill.textContent = ended ? root.row.status : (shown === 'empty' ? 'no run yet' : shown);
    showWait();
  }
  function showWait() {
    var box = document.getElementById('wait');
    if (!wait) { box.hidden = true; box.replaceChildren(); return; }
    var line = el('div', '', '\u23F8 Waiting for signal \u201C' + wait.name + '\u201D since ' + time(wait.since) +
      (typeof wait.timeoutAt === 'number' ? ' (times out at ' + time(wait.timeoutAt) + ')' : ''));
    line.id = 'wait-line';
    var out = [line];
    if (wait.schema !== undefined) { var schema = el('pre', '', pretty(wait.schema)); schema.id = 'wait-schema'; out.push(el('div', 'muted', 'the signal\u2019s value must fit this schema'), schema); }
    box.replaceChildren.apply(box, out);
    box.hidden = false;
  }

  // ---- selection and details (fetched on demand, never all at once) ----
  function select(id, scroll) {
    selected = id;
    // The URL names the selected node, so a link opens the page on it.
    if (location.hash !== '#node=' + encodeURIComponent(id)) history.replaceState(null, '', '#node=' + encodeURIComponent(id));
    render();
    if (scroll) {
      for (var i = 0; i < visible.length; i += 2) if (visible[i] === id) {
        var y = (i / 2) * ROW_H;
        if (y < treeEl.scrollTop) treeEl.scrollTop = y;
        else if (y + ROW_H > treeEl.scrollTop + treeEl.clientHeight) treeEl.scrollTop = y + ROW_H - treeEl.clientHeight;
        break;
      }
    }
    loadDetails();
  }
  function loadDetails() {
    if (selected === null) return;
    var id = selected, seq = ++detailsSeq;
    fetch('/api/node/' + encodeURIComponent(id)).then(function (res) { return res.ok ? res.json() : null; }).then(function (d) {
      if (seq !== detailsSeq) return;
      if (d) showDetails(d); else if (!detailsEl.dataset.id || detailsEl.dataset.id !== id) showMissing(id);
    }).catch(function () { /* the stream's state shows the connection */ });
  }
  function showMissing(id) {
    detailsEl.replaceChildren(el('p', 'hint', 'Node ' + id + ' is no longer in the tree (pruned by retention or replaced).'));
  }
  function section(title, id) { var s = el('section'); if (id) s.id = id; add(s, el('h3', '', title)); return s; }
  function grid(pairs) {
    var dl = el('dl', 'grid');
    for (var i = 0; i < pairs.length; i += 2) if (pairs[i + 1] !== undefined && pairs[i + 1] !== '') add(dl, el('dt', '', pairs[i]), el('dd', '', pairs[i + 1]));
    return dl;
  }
  // Where the time went: the node and its children as bars on the node's own time span.
  function timeline(d) {
    var n = nodes.get(d.id);
    if (!n || !n.children.length || typeof n.row.startTime !== 'number') return null;
    var start = n.row.startTime, span = durationOf(n.row);
    if (!(span > 0)) return null;
    var kids = n.children.map(function (id) { return nodes.get(id); }).filter(function (k) { return k && typeof k.row.startTime === 'number'; });
    kids.sort(function (a, b) { return a.row.startTime - b.row.startTime; });
    var shown = kids.slice(0, 200), box = section('Timeline', 'd-timeline');
    [n].concat(shown).forEach(function (k) {
      var dur = durationOf(k.row) || 0, line = el('div', 'tl-row'), track = el('div', 'tl-track'), bar = el('div', 'tl-bar s-' + k.row.status);
      bar.style.left = Math.max(0, Math.min(100, ((k.row.startTime - start) / span) * 100)).toFixed(1) + '%';
      bar.style.width = Math.max(0, Math.min(100, (dur / span) * 100)).toFixed(1) + '%';
      bar.title = k.row.name + ' \u00B7 ' + fmtMs(dur);
      line.dataset.id = k.row.id;
      add(line, el('span', 'tl-name', k.row.name), add(track, bar));
      line.addEventListener('click', function () { select(k.row.id, true); });
      add(box, line);
    });
    if (kids.length > shown.length) add(box, el('div', 'muted', (kids.length - shown.length) + ' more children not drawn'));
    return box;
  }
  function showDetails(d) {
    var out = [];
    detailsEl.dataset.id = d.id;
    var crumbs = el('div', 'crumbs');
    d.path.forEach(function (p) {
      var a = el('a', '', p.name);
      a.addEventListener('click', function () { select(p.id, true); });
      add(crumbs, a, document.createTextNode(' \u203A '));
    });
    add(crumbs, el('span', '', d.name));
    var title = el('h2', '', d.name);
    title.id = 'd-name';
    out.push(crumbs, title);
    var row = nodes.get(d.id);
    var sub = row && row.row.usage;
    out.push(grid(['kind', d.kind, 'status', d.status, 'id', d.id, 'started', time(d.startTime), 'ended', time(d.endTime),
      'duration', fmtMs(typeof d.duration === 'number' ? d.duration : (row ? durationOf(row.row) : undefined)),
      'tokens (own)', d.usage ? usageText(d.usage) : undefined, 'tokens (subtree)', sub ? usageText(sub) : undefined]));
    if (d.error) {
      var es = section('Error', 'd-error-section'), box = el('div', 'error-box'), at = box;
      box.id = 'd-error';
      for (var err = d.error, depth = 0; err && depth < 8; err = err.cause, depth++) {
        var part = el('div', depth ? 'cause' : '', (depth ? 'caused by ' : '') + err.name + ': ' + err.message);
        add(at, part);
        at = part;
      }
      out.push(add(es, box));
    }
    if (d.why) {
      var why = section('Why', 'd-why-section');
      var line = el('div', 'why', 'why ' + d.why);
      line.id = 'd-why';
      out.push(add(why, line));
    }
    if (d.prompt || d.answer) {
      var pa = section('Prompt and answer', 'd-prompt');
      var p = d.prompt || {}, a = d.answer || {};
      add(pa, grid(['agent', p.agentName || a.agentName, 'model', p.model || a.model, 'prompt', d.name, 'stop reason', a.stopReason || undefined,
        'turns', a.turns, 'served', a.cached ? 'from the prompt cache' : (a.replayed ? 'replayed from the run store' : undefined),
        'call usage', a.usage ? usageText(a.usage) : undefined]));
      if (a.output !== undefined) { var ans = el('pre', '', pretty(a.output)); ans.id = 'd-answer'; add(pa, el('div', 'muted', 'answer'), ans); }
      if (a.error) add(pa, el('pre', 'bad', a.error.name + ': ' + a.error.message));
      out.push(pa);
    }
    if (d.turns.length) {
      var cv = section('Conversation', 'd-conversation');
      add(cv, el('div', 'card', 'user \u00B7 ' + d.name));
      d.turns.forEach(function (t) {
        var turn = el('div', 'card turn');
        add(turn, el('div', 'title', 'turn ' + t.turn + ' \u00B7 ' + t.model + ' \u00B7 ' + fmtMs(t.duration) + (t.stopReason ? ' \u00B7 ' + t.stopReason : '')));
        t.tools.forEach(function (u) {
          add(turn, el('div', u.isError ? 'bad' : 'muted', 'tool use ' + u.toolName + (u.isError ? ' (error)' : '')), el('pre', 'tool-input', pretty(u.input)),
            el('div', 'muted', 'result'), el('pre', 'tool-output', pretty(u.output)));
        });
        add(cv, turn);
      });
      if (d.answer && d.answer.output !== undefined) add(cv, el('div', 'card', 'answer \u00B7 ' + (d.answer.output.length > 200 ? d.answer.output.slice(0, 200) + '\u2026' : d.answer.output)));
      var table = el('table', 'requests');
      table.id = 'd-requests';
      var headRow = el('tr');
      ['turn', 'model', 'duration', 'stop', 'tokens in', 'tokens out', 'cost'].forEach(function (h) { add(headRow, el('th', '', h)); });
      add(table, headRow);
      d.turns.forEach(function (t) {
        var tr = el('tr');
        [t.turn, t.model + (t.requestModel !== t.model ? ' (asked ' + t.requestModel + ')' : ''), fmtMs(t.duration), t.stopReason || '',
          t.usage.inputTokens.toLocaleString('en-US'), t.usage.outputTokens.toLocaleString('en-US'), fmtCost(t.usage)].forEach(function (v) { add(tr, el('td', '', v)); });
        add(table, tr);
      });
      add(cv, el('div', 'muted', 'requests'), table);
      out.push(cv);
    }
    if (d.checkpoint) {
      var c = d.checkpoint, cp = c.checkpoint, cs = section('Trajectory checkpoint (latest)', 'd-checkpoint');
      var head = el('div');
      var rev = el('span', 'assess', 'revision ' + c.revision); rev.id = 'd-checkpoint-revision';
      var as = el('span', 'assess a-' + c.assessment, c.assessment); as.id = 'd-checkpoint-assessment';
      add(head, rev, document.createTextNode(' \u00B7 '), as, el('span', 'muted', c.injected ? ' \u00B7 injected' : ' \u00B7 not injected'));
      add(cs, head, grid(['goal', cp.goal, 'turn', cp.turn, 'trigger', cp.trigger, 'next action', cp.nextAction,
        'success evidence', cp.successEvidence, 'situation', cp.situationAssessment, 'grounding', cp.groundingSource]));
      if (cp.groundedFacts && cp.groundedFacts.length) {
        var facts = el('ul');
        cp.groundedFacts.forEach(function (f) { add(facts, el('li', '', f.statement + ' ' + f.evidence + (f.outcome ? ' (' + f.outcome + ')' : '') + (f.freshness !== 'fresh' ? ' [' + f.freshness + ']' : ''))); });
        add(cs, el('div', 'muted', 'grounded facts'), facts);
      }
      [['completed work', cp.completedWork], ['open questions', cp.openQuestions], ['do not repeat', cp.doNotRepeat]].forEach(function (pair) {
        if (!pair[1] || !pair[1].length) return;
        var list = el('ul');
        pair[1].forEach(function (t) { add(list, el('li', '', t)); });
        add(cs, el('div', 'muted', pair[0]), list);
      });
      out.push(cs);
    }
    if (d.signOffs.length) {
      var so = section('Goal sign-offs', 'd-signoffs');
      d.signOffs.forEach(function (s) {
        var card = el('div', 'card');
        add(card, el('div', 'title ' + (s.verdict === 'accept' ? 'ok' : 'bad'), (s.verdict === 'accept' ? '\u2713 accepted: ' : '\u2717 rejected: ') + s.goal),
          s.missing ? el('div', '', 'missing: ' + s.missing) : null, s.judgeFailed ? el('div', 'bad', 'the judge failed') : null,
          el('div', 'muted', s.planPath + ' \u00B7 ' + time(s.timestamp)));
        add(so, card);
      });
      out.push(so);
    }
    if (d.tools.length || d.mcpCalls.length) {
      var ts = section('Tool calls', 'd-tools');
      d.tools.forEach(function (t) {
        var card = el('div', 'card tool');
        var state = t.blockedReason ? 'blocked: ' + t.blockedReason : (t.isError ? 'error' : 'ok');
        add(card, el('div', 'title', t.toolName), el('div', t.isError ? 'bad' : 'muted', state + (t.outcome ? ' \u00B7 verifier ' + t.outcome : '') + ' \u00B7 ' + fmtMs(t.duration)),
          el('div', 'muted', 'input'), el('pre', 'tool-input', pretty(t.input)), el('div', 'muted', 'output'), el('pre', 'tool-output', pretty(t.output)));
        add(ts, card);
      });
      d.mcpCalls.forEach(function (m) {
        var card = el('div', 'card tool');
        add(card, el('div', 'title', m.server + ' \u00B7 ' + (m.toolName || '')), el('div', m.isError ? 'bad' : 'muted', (m.isError ? 'error' : 'ok') + ' \u00B7 ' + fmtMs(m.duration)),
          el('div', 'muted', 'input'), el('pre', 'tool-input', pretty(m.input)), el('div', 'muted', 'output'), el('pre', 'tool-output', pretty(m.output)));
        add(ts, card);
      });
      out.push(ts);
    }
    var tl = timeline(d);
    if (tl) out.push(tl);
    var st = section('State', 'd-state-section');
    var state = el('pre', '', d.stateSnapshot && Object.keys(d.stateSnapshot).length ? pretty(d.stateSnapshot) : 'no observed state');
    state.id = 'd-state';
    out.push(add(st, state));
    var ls = section('Logs (' + d.logs.length + (d.dropped.logs ? ', ' + d.dropped.logs + ' dropped' : '') + ')', 'd-logs');
    if (!d.logs.length) add(ls, el('div', 'muted', 'no logs'));
    d.logs.forEach(function (l) {
      add(ls, el('div', 'log lv-' + l.level, time(l.timestamp) + '  ' + l.level.toUpperCase() + '  ' + l.message + (l.data !== undefined ? '  ' + JSON.stringify(l.data) : '')));
    });
    out.push(ls);
    var ev = el('details');
    add(ev, el('summary', '', 'Events (' + d.events.length + (d.dropped.events ? ', ' + d.dropped.events + ' dropped' : '') + ')'));
    d.events.forEach(function (e) { add(ev, el('pre', '', e.type + '  ' + time(e.timestamp) + '\n' + pretty(e))); });
    out.push(add(section('Events', 'd-events'), ev));
    detailsEl.replaceChildren.apply(detailsEl, out);
  }

  // ---- input ----
  treeEl.addEventListener('scroll', function () { render(); });
  window.addEventListener('resize', function () { render(); });
  treeEl.addEventListener('click', function (event) {
    var target = event.target, rowEl = target.closest ? target.closest('.row') : null;
    if (!rowEl || !rowEl.dataset.id) return;
    var id = rowEl.dataset.id, n = nodes.get(id);
    if (target.classList.contains('toggle') && n && n.children.length) {
      var depth = visible[visible.indexOf(id) + 1];
      n.open = !isOpen(n, depth);
      rebuild();
      return;
    }
    select(id, false);
  });
  treeEl.addEventListener('keydown', function (event) {
    if (selected === null) return;
    var at = -1;
    for (var i = 0; i < visible.length; i += 2) if (visible[i] === selected) { at = i; break; }
    if (at < 0) return;
    var n = nodes.get(selected);
    if (event.key === 'ArrowDown' && at + 2 < visible.length) select(visible[at + 2], true);
    else if (event.key === 'ArrowUp' && at >= 2) select(visible[at - 2], true);
    else if (event.key === 'ArrowRight' && n.children.length) { n.open = true; rebuild(); }
    else if (event.key === 'ArrowLeft' && n.children.length) { n.open = false; rebuild(); }
    else return;
    event.preventDefault();
  });
  document.getElementById('q').addEventListener('input', function (e) { filter.q = e.target.value.trim().toLowerCase(); rebuild(); });
  document.getElementById('f-status').addEventListener('change', function (e) { filter.status = e.target.value; rebuild(); });
  document.getElementById('f-kind').addEventListener('change', function (e) { filter.kind = e.target.value; rebuild(); });
  document.getElementById('expand-all').addEventListener('click', function () { nodes.forEach(function (n) { n.open = true; }); rebuild(); });
  document.getElementById('collapse-all').addEventListener('click', function () { nodes.forEach(function (n) { n.open = n.row.id === rootId; }); rebuild(); });
  // Running nodes' durations tick.
  setInterval(function () { if (mode === 'live') render(); }, 1000);

  // A link to a node (#node=<id>): select it and open its ancestors.
  function openLinked() {
    var m = /^#node=(.+)$/.exec(location.hash), id = m ? decodeURIComponent(m[1]) : null, n = id !== null ? nodes.get(id) : null;
    if (!n) return;
    for (var p = n.row.parentId !== null ? nodes.get(n.row.parentId) : null; p; p = p.row.parentId !== null ? nodes.get(p.row.parentId) : null) p.open = true;
    selected = id;
    setTimeout(function () { select(id, true); }, 0);
  }

  // ---- the stream: a snapshot, then batches of changed rows ----
  var stream = new EventSource('/api/events');
  stream.addEventListener('snapshot', function (e) {
    var d = JSON.parse(e.data);
    connected = true;
    nodes.clear();
    rootId = d.rootId;
    mode = d.mode;
    wait = d.wait || null;
    d.rows.forEach(upsert);
    if (selected === null) openLinked();
    rebuild();
    // When the first tree was on screen, in ms since navigation started (tests read it).
    if (!document.body.dataset.ready) document.body.dataset.firstRenderMs = String(Math.round(performance.now()));
    document.body.dataset.ready = '1';
    loadDetails();
  });
  stream.addEventListener('nodes', function (e) {
    var d = JSON.parse(e.data);
    d.removed.forEach(remove);
    d.upserted.forEach(upsert);
    rootId = d.rootId;
    mode = d.mode;
    wait = d.wait || null;
    rebuild();
    if (selected !== null && (d.touched === null || d.touched.indexOf(selected) >= 0 || d.upserted.some(function (r) { return r.id === selected; }))) loadDetails();
  });
  stream.addEventListener('open', function () { connected = true; header(); });
  stream.addEventListener('error', function () { connected = false; header(); });
})();
</script>
</body>
</html>
`;

/** The page, with this server's CSP nonce on its one script and one style. */
export function viewerPage(nonce: string): string {
  return PAGE.replaceAll('__NONCE__', nonce);
}
