// The matrix as a static site: one index.html with no external resources, so it opens from the file
// system, a CI artifact or any static host. It holds the matrix data (matrix.json, as is) and builds
// everything from it in the browser: the scores, the interop figure over the runs one ticks, the diff
// of two columns, the filters and views, each cell's evidence and each rule's history. Another tool
// can read the same data from matrix.json.
import { escapeXml as esc } from './escape.ts';
import type { Matrix } from './matrix.ts';

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f8fa}
header{background:#fff;border-bottom:1px solid #d0d7de;padding:16px 24px}
h1{font-size:20px;margin:0 0 4px}
h2{font-size:16px;margin:0 0 8px}
h3{font-size:14px;margin:12px 0 4px}
main{padding:16px 24px}
section{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:12px 16px;margin:0 0 16px}
.top{display:flex;gap:16px;flex-wrap:wrap;background:none;border:0;padding:0}
.top>div{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:12px 16px;flex:1 1 360px}
.top>div:first-child{flex:2 1 640px}
#scores td:nth-child(3){min-width:240px}
#interop-figure{font-size:18px;font-weight:600;margin:4px 0 8px}
#interop-picks label{display:block}
.filters{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:0 0 8px}
select,input,button{font:inherit}
.filters input,.filters select,#diff-section select{padding:4px 8px;border:1px solid #d0d7de;border-radius:6px;background:#fff}
.filters input{min-width:260px}
#shown,#diff-count{margin:0 0 8px;font-weight:600}
table{border-collapse:collapse;background:#fff}
th,td{border-bottom:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
.scroll{max-height:320px;overflow:auto}
.matrix-scroll{overflow:auto;max-height:75vh}
#matrix thead th{position:sticky;top:0;background:#fff;z-index:1}
#matrix th.col{min-width:90px;font-weight:600}
#matrix th.col small,.muted{color:#57606a;font-weight:400}
.rule-id{font:600 13px ui-monospace,monospace;background:none;border:0;padding:0;color:#0969da;cursor:pointer;text-align:left}
.rule-text{color:#57606a;font-size:12px;max-width:520px}
td.cell button{font:600 12px system-ui,sans-serif;background:none;border:0;padding:2px 4px;cursor:pointer;white-space:nowrap;color:inherit}
td.cell button:hover{text-decoration:underline}
.v-pass{color:#1a7f37}.v-fail{color:#cf222e}.v-skipped{color:#9a6700}.v-not-tested{color:#57606a}.v-observed{color:#8250df}.v-not-run{color:#57606a}.v-error{color:#bc4c00}.v-out-of-scope,.v-absent{color:#8c959f}
td.v-pass{background:#dafbe1}td.v-fail{background:#ffebe9}td.v-error{background:#fff1e5}td.v-skipped{background:#fff8c5}
td.unselected{font-style:italic;background:none}
#panel{position:fixed;top:0;right:0;bottom:0;width:min(640px,max(50vw,360px));background:#fff;border-left:1px solid #d0d7de;box-shadow:-4px 0 16px rgba(0,0,0,.12);overflow:auto;padding:16px 20px;z-index:2}
body.panel-open main{margin-right:min(640px,50vw)}
#panel-close{float:right;padding:2px 10px;border:1px solid #d0d7de;border-radius:6px;background:#fff;cursor:pointer}
.test{border-top:1px solid #d0d7de;padding:8px 0}
.test-title{font-weight:600}
.test-status{font:600 12px ui-monospace,monospace}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:8px;overflow:auto;max-height:280px;white-space:pre-wrap;word-break:break-all}
.exchanges{font:12px ui-monospace,monospace;padding-left:18px;margin:4px 0}
.exchange.failed{color:#cf222e;font-weight:600}
.exchange.failed::after{content:"  ← the failure names it"}
.history-run{cursor:pointer}
`;

// Built with DOM calls and textContent only: rule texts, errors and URLs come from targets and are never parsed as HTML.
// The filters, the view, the diff's two columns and the ticked runs live in the URL hash, so a link
// reproduces a view. Plain JavaScript in a string: no template literals inside, they would end this one.
const SCRIPT = String.raw`
'use strict';
const M = JSON.parse(document.getElementById('matrix-data').textContent);
const COLUMN = {};
M.columns.forEach(function (c) { COLUMN[c.id] = c; });
const ROW = {};
M.rows.forEach(function (r) { ROW[r.id] = r; });
const CELLS = ['pass', 'fail', 'error', 'skipped', 'not-tested', 'observed', 'not-run', 'out-of-scope', 'absent'];
const CATALOGUE = { added: ' · added: only the newer reports’ catalogues have it', retired: ' · retired: only the older reports’ catalogues have it', some: ' · in some reports’ catalogues only' };
const $ = function (id) { return document.getElementById(id); };

function el(tag, attrs, children) {
  const node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (key) {
    const value = attrs[key];
    if (value === undefined || value === null || value === false) return;
    if (key === 'text') node.textContent = value;
    else if (key === 'onclick') node.addEventListener('click', value);
    else node.setAttribute(key, value === true ? '' : String(value));
  });
  [].concat(children || []).forEach(function (child) { if (child !== null && child !== undefined) node.append(child); });
  return node;
}
const when = function (c) { return c.when.slice(0, 16).replace('T', ' '); };
const percent = function (part, whole) { return whole === 0 ? '–' : Math.round((part / whole) * 1000) / 10 + '%'; };
const fraction = function (s) { return s.passed + '/' + s.judged + ' (' + percent(s.passed, s.judged) + ')'; };
function runLine(c) {
  return when(c) + (c.whenFrom === 'file-time' ? ' (file time)' : '') + ', tool ' + c.toolVersion + ', seed ' + c.seed +
    (c.status === 'complete' ? '' : ', ' + c.status) + (c.narrowed.length ? ', narrowed by ' + c.narrowed.join(' ') : '');
}
// './' first: a folder named like 'eu:staging' would otherwise read as a URL scheme.
const reportHref = function (c) { return /^\.\.?\//.test(c.html) ? c.html : './' + c.html; };
const columnLabel = function (c) { return c.target + ' · ' + when(c) + ' (' + c.id + ')'; };
const isUnselected = function (row, id) { return row.unselected.indexOf(id) >= 0; };

// Header and scores: each target's latest run.
if (M.title) $('title').textContent = M.title;
$('summary').textContent = M.targets.length + ' target(s), ' + M.columns.length + ' run(s), ' + M.rows.length + ' rules · ' + M.tool.name + ' ' + M.tool.version + ' · matrix format ' + M.matrixVersion;
M.targets.forEach(function (t) {
  const c = COLUMN[t.columns[t.columns.length - 1]];
  const s = c.score;
  $('scores').tBodies[0].append(el('tr', { 'data-target': t.name }, [
    el('td', { text: t.name }), el('td', { text: c.kind }), el('td', { text: runLine(c) }), el('td', { text: t.columns.length }),
    el('td', { text: fraction(s.must) }), el('td', { text: fraction(s.should) }),
    el('td', { text: s.must.notJudged + s.should.notJudged }), el('td', { text: fraction(s.interpretation) }),
  ]));
});

// Interop over the ticked runs: the rules every one passes, of those in scope in every one.
M.columns.forEach(function (c) {
  $('interop-picks').append(el('label', {}, [el('input', { type: 'checkbox', class: 'interop-pick', value: c.id }), ' ' + columnLabel(c)]));
});
function picks() { return Array.prototype.map.call(document.querySelectorAll('.interop-pick:checked'), function (i) { return i.value; }); }
function updateInterop() {
  const ids = picks();
  if (ids.length === 0) { $('interop-figure').textContent = 'Tick runs to count the rules they all pass.'; return; }
  const inScope = M.rows.filter(function (r) {
    return ids.every(function (id) { return r.cells[id] !== 'absent' && r.cells[id] !== 'out-of-scope' && !isUnselected(r, id); });
  });
  const passed = inScope.filter(function (r) { return ids.every(function (id) { return r.cells[id] === 'pass'; }); });
  $('interop-figure').textContent = passed.length + ' of ' + inScope.length + ' rules pass on every selected run (' + percent(passed.length, inScope.length) + ')';
}

// The matrix: a row per rule, a column per run.
const head = el('tr', {}, [el('th', { text: 'rule' }), el('th', { text: 'level' })]);
M.columns.forEach(function (c) {
  head.append(el('th', { class: 'col', 'data-column': c.id, title: runLine(c) + '\nMUST ' + fraction(c.score.must) + ', SHOULD ' + fraction(c.score.should) },
    [c.target, el('br'), el('small', { text: when(c) + ' · ' + c.id })]));
});
$('matrix').tHead.append(head);
function cellButton(row, id) {
  const cell = row.cells[id];
  return el('td', { class: 'cell v-' + cell + (isUnselected(row, id) ? ' unselected' : ''), 'data-column': id },
    el('button', { type: 'button', title: isUnselected(row, id) ? 'not selected by the narrowed run' : columnLabel(COLUMN[id]), text: cell, onclick: function () { openEvidence(row.id, id); } }));
}
const ruleButton = function (row) { return el('button', { type: 'button', class: 'rule-id', text: row.id, title: 'its history', onclick: function () { openHistory(row.id); } }); };
const lines = M.rows.map(function (row) {
  const tr = el('tr', { class: 'rule', 'data-rule': row.id, 'data-plane': row.plane, 'data-level': row.level, 'data-source': row.source || '' }, [
    el('td', {}, [ruleButton(row), el('div', { class: 'rule-text', text: '§' + row.section + ' ' + row.text })]),
    el('td', { text: row.level + (row.catalogue === 'every' ? '' : ' (' + row.catalogue + ')') }),
  ]);
  M.columns.forEach(function (c) { tr.append(cellButton(row, c.id)); });
  $('matrix').tBodies[0].append(tr);
  return { row: row, tr: tr };
});

// Filters and views.
function options(id, values) { values.forEach(function (v) { $(id).append(el('option', { value: v, text: v })); }); }
const distinct = function (key) { return Array.from(new Set(M.rows.map(function (r) { return r[key]; }).filter(Boolean))).sort(); };
options('f-plane', distinct('plane'));
options('f-level', distinct('level'));
options('f-source', distinct('source'));
options('f-verdict', CELLS.filter(function (v) { return M.rows.some(function (r) { return Object.values(r.cells).indexOf(v) >= 0; }); }));
const FILTERS = ['q', 'plane', 'level', 'source', 'verdict', 'view'];
const differs = new Set(M.views.differs);
const failsOnAll = new Set(M.views.failsOnAll);
function apply() {
  const s = {};
  FILTERS.forEach(function (n) { s[n] = $('f-' + n).value.trim(); });
  const q = s.q.toLowerCase();
  let shown = 0;
  lines.forEach(function (line) {
    const row = line.row;
    const ok = (!q || (row.id + ' ' + row.text).toLowerCase().indexOf(q) >= 0) &&
      (!s.plane || row.plane === s.plane) && (!s.level || row.level === s.level) && (!s.source || row.source === s.source) &&
      (!s.verdict || M.columns.some(function (c) { return row.cells[c.id] === s.verdict; })) &&
      (s.view === 'differs' ? differs.has(row.id) : s.view === 'fails-on-all' ? failsOnAll.has(row.id) : true);
    line.tr.hidden = !ok;
    if (ok) shown++;
  });
  $('shown').textContent = shown + ' of ' + M.rows.length + ' rules shown';
  save();
}

// The diff of two columns: every rule whose cells differ.
M.columns.forEach(function (c) { options('diff-a', [c.id]); options('diff-b', [c.id]); });
['diff-a', 'diff-b'].forEach(function (id) { Array.prototype.forEach.call($(id).options, function (o) { o.textContent = columnLabel(COLUMN[o.value]); }); });
$('diff-b').value = M.columns[Math.min(1, M.columns.length - 1)].id;
function updateDiff() {
  const a = $('diff-a').value;
  const b = $('diff-b').value;
  const rows = M.rows.filter(function (r) { return r.cells[a] !== r.cells[b]; });
  $('diff-count').textContent = rows.length + ' rules differ between ' + a + ' and ' + b;
  $('diff-a-head').textContent = columnLabel(COLUMN[a]);
  $('diff-b-head').textContent = columnLabel(COLUMN[b]);
  $('diff').tBodies[0].replaceChildren.apply($('diff').tBodies[0], rows.map(function (r) {
    return el('tr', { 'data-rule': r.id }, [el('td', {}, ruleButton(r)), el('td', { text: r.level }), cellButton(r, a), cellButton(r, b)]);
  }));
  save();
}

// The panel: a cell's evidence, or a rule's history.
// Focus moves into the panel and back to the cell or rule that opened it, for keyboard readers.
let opener = null;
function showPanel(children) {
  if (!$('panel').contains(document.activeElement)) opener = document.activeElement;
  $('panel-body').replaceChildren.apply($('panel-body'), children);
  $('panel').hidden = false;
  $('panel').scrollTop = 0;
  // The page makes room for the panel, so the cells stay in reach while it is open.
  document.body.classList.add('panel-open');
  $('panel-close').focus();
}
function closePanel() {
  if ($('panel').hidden) return;
  $('panel').hidden = true;
  document.body.classList.remove('panel-open');
  if (opener && opener.isConnected) opener.focus();
}
function ruleLines(row) {
  return [
    el('p', { class: 'muted', text: row.level + ' · ' + row.plane + ' · §' + row.section + (row.source ? ' · ' + row.source : '') + (CATALOGUE[row.catalogue] || '') }),
    el('p', { text: row.text }),
  ];
}
function testBlock(t) {
  return el('div', { class: 'test' }, [
    el('div', {}, [el('span', { class: 'test-status', text: t.status }), ' ', el('span', { class: 'test-title', text: t.title }), el('span', { class: 'muted', text: ' ' + t.file })]),
    t.reason ? el('p', { class: 'test-reason', text: t.reason }) : null,
    t.error ? el('pre', { class: 'test-error', text: t.error }) : null,
    t.exchanges.length ? el('ul', { class: 'exchanges' }, t.exchanges.map(function (x) {
      return el('li', { class: 'exchange' + (x.failed ? ' failed' : ''), title: x.id + (x.delivery ? ' (a webhook delivery)' : '') + (x.error ? ': ' + x.error : ''), text: x.method + ' ' + x.url + ' → ' + (x.status || 'no answer') });
    })) : null,
    t.moreExchanges ? el('p', { class: 'muted', text: '…and ' + t.moreExchanges + ' more exchanges in the report' }) : null,
  ]);
}
function openEvidence(id, columnId) {
  const row = ROW[id];
  const c = COLUMN[columnId];
  const cell = row.cells[columnId];
  const evidence = row.evidence[columnId];
  const body = [el('h2', { text: row.id + ' on ' + c.target }), el('p', { class: 'muted', text: columnId + ' · ' + runLine(c) }),
    el('p', {}, [el('span', { class: 'v-' + cell, text: cell })])].concat(ruleLines(row));
  if (cell === 'absent') body.push(el('p', { text: 'This run’s catalogue has no such rule: it was added or retired since. No failure.' }));
  if (isUnselected(row, columnId)) body.push(el('p', { text: 'The run was narrowed (' + c.narrowed.join(' ') + ') and left this rule out: no verdict on the target.' }));
  if (evidence && evidence.reason) body.push(el('p', { class: 'test-reason', text: evidence.reason }));
  (evidence ? evidence.tests : []).forEach(function (t) { body.push(testBlock(t)); });
  body.push(c.html
    ? el('p', {}, el('a', { class: 'full-report', href: reportHref(c) + '#q=' + encodeURIComponent(row.id), text: 'This rule in the run’s report: every exchange with its headers and bodies, and the lines that reproduce a failure' }))
    : el('p', { class: 'muted', text: 'The run’s report: ' + c.folder + '/' + c.file }));
  showPanel(body);
}
function openHistory(id) {
  const row = ROW[id];
  const body = [el('h2', { text: row.id + ': history' })].concat(ruleLines(row));
  M.targets.forEach(function (t) {
    const spans = row.history[t.name] || {};
    body.push(el('div', { class: 'history-target', 'data-target': t.name }, [
      el('h3', { text: t.name }),
      el('ol', {}, t.columns.map(function (cid) {
        const cell = row.cells[cid];
        return el('li', { class: 'history-run v-' + cell, 'data-column': cid, text: cid + ' ' + when(COLUMN[cid]) + ': ' + cell, onclick: function () { openEvidence(id, cid); } });
      })),
      el('ul', {}, Object.keys(spans).map(function (v) {
        const span = spans[v];
        return el('li', { class: 'history-span', text: v + ': first ' + span.first + ' ' + when(COLUMN[span.first]) + ', last ' + span.last + ' ' + when(COLUMN[span.last]) });
      })),
    ]));
  });
  showPanel(body);
}
$('panel-close').addEventListener('click', closePanel);
document.addEventListener('keydown', function (e) { if (e.key === 'Escape') closePanel(); });

// The URL hash: the filters, the view, the diff's columns and the ticked runs.
function save() {
  const parts = FILTERS.filter(function (n) { return $('f-' + n).value; }).map(function (n) { return n + '=' + encodeURIComponent($('f-' + n).value); });
  parts.push('a=' + $('diff-a').value, 'b=' + $('diff-b').value, 'pick=' + picks().join(','));
  history.replaceState(null, '', '#' + parts.join('&'));
}
function load() {
  const hash = new URLSearchParams(location.hash.slice(1));
  FILTERS.forEach(function (n) { $('f-' + n).value = hash.get(n) || (n === 'view' ? 'all' : ''); });
  ['a', 'b'].forEach(function (n) { if (COLUMN[hash.get(n)]) $('diff-' + n).value = hash.get(n); });
  const picked = hash.has('pick') ? hash.get('pick').split(',') : M.views.interop.columns;
  document.querySelectorAll('.interop-pick').forEach(function (i) { i.checked = picked.indexOf(i.value) >= 0; });
}
load();
FILTERS.forEach(function (n) { $('f-' + n).addEventListener('input', apply); });
['diff-a', 'diff-b'].forEach(function (id) { $(id).addEventListener('change', updateDiff); });
document.querySelectorAll('.interop-pick').forEach(function (i) { i.addEventListener('change', function () { updateInterop(); save(); }); });
window.addEventListener('hashchange', function () { load(); updateInterop(); updateDiff(); apply(); });
updateInterop();
updateDiff();
apply();
`;

/** index.html of the matrix site: the data (`<` escaped, so no text in it can end the script) and the page that shows it. */
export function matrixSite(matrix: Matrix): string {
  const data = JSON.stringify(matrix).replace(/</g, '\\u003c');
  const title = `${matrix.title ?? 'Conformance matrix'}: ${matrix.targets.map((t) => t.name).join(', ')}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head>
<body><header><h1 id="title">Conformance matrix</h1><p id="summary" class="muted"></p></header>
<main>
<div class="top">
<div><h2>Scores</h2><p class="muted">Each target’s latest run: MUST and SHOULD rules of the spec and the service passed out of those judged (pass or fail); not judged: MUST and SHOULD rules in scope with neither verdict; interpretations (our reading) apart.</p>
<table id="scores"><thead><tr><th>target</th><th>kind</th><th>latest run</th><th>runs</th><th>MUST</th><th>SHOULD</th><th>not judged</th><th>interpretations</th></tr></thead><tbody></tbody></table></div>
<div id="interop"><h2>Interop</h2><p id="interop-figure"></p><p class="muted">Rules in scope on every ticked run (in its catalogue, of a plane it covered, selected by it), and those all of them pass.</p><div id="interop-picks"></div></div>
</div>
<section id="diff-section"><h2>Diff of two runs</h2>
<label>A <select id="diff-a"></select></label> <label>B <select id="diff-b"></select></label>
<p id="diff-count"></p>
<div class="scroll"><table id="diff"><thead><tr><th>rule</th><th>level</th><th id="diff-a-head"></th><th id="diff-b-head"></th></tr></thead><tbody></tbody></table></div></section>
<section><h2>Rules</h2>
<div class="filters">
<input id="f-q" type="search" placeholder="Search rule ids and texts" aria-label="search">
<select id="f-plane" aria-label="plane"><option value="">any plane</option></select>
<select id="f-level" aria-label="level"><option value="">any level</option></select>
<select id="f-source" aria-label="source"><option value="">any source</option></select>
<select id="f-verdict" aria-label="verdict"><option value="">any verdict</option></select>
<select id="f-view" aria-label="view"><option value="all">every rule</option><option value="differs">differs across targets</option><option value="fails-on-all">fails on all targets</option></select>
</div>
<p id="shown"></p>
<div class="matrix-scroll"><table id="matrix"><thead></thead><tbody></tbody></table></div>
<p class="muted">A click on a cell shows that run’s evidence; on a rule id, its history on each target.</p>
</section>
</main>
<aside id="panel" hidden><button type="button" id="panel-close">Close</button><div id="panel-body"></div></aside>
<script type="application/json" id="matrix-data">${data}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}
