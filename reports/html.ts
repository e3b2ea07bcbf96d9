// A self-contained HTML page: summary, search and filters, and per rule its tests, the lines that
// reproduce a failure and the recorded exchanges that prove the verdict. No external resources,
// so it opens from a CI artifact.
// Each rule shows its source; interpretations (our reading, not the spec's or the service's)
// have their own count and filter, and their failures are warnings.
import { gzipSync } from 'node:zlib';
import { sectionLabel } from '../specs/sections.ts';
import { narrowedLine, notComparedNote, notJudgedLine } from './console.ts';
import { retriesLine } from './retries.ts';
import { escapeXml as esc } from './escape.ts';
import { standingOf } from './standing.ts';
import { emptyVerdicts, type ConformanceReport, type RuleResult, type TestOutcome, type Verdict } from './conformance-report.ts';

const VERDICTS = Object.keys(emptyVerdicts()) as Verdict[];

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f8fa}
header{background:#fff;border-bottom:1px solid #d0d7de;padding:16px 24px}
h1{font-size:20px;margin:0 0 4px}
main{padding:16px 24px}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}
.card{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:8px 14px;min-width:90px}
.card b{display:block;font-size:22px}
.filters{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:0 0 8px}
.filters input,.filters select,.filters button{font:inherit;padding:4px 8px;border:1px solid #d0d7de;border-radius:6px;background:#fff}
.filters input{min-width:260px}
.filters button{cursor:pointer}
.filters button.on{background:#cf222e;color:#fff;border-color:#cf222e}
#shown{margin:0 0 8px;font-weight:600}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border-bottom:1px solid #d0d7de;padding:6px 8px;text-align:left;vertical-align:top}
.v{font-weight:600;white-space:nowrap}
td code{white-space:nowrap}
.src-interpretation{font-style:italic;color:#8250df}
.v-pass{color:#1a7f37}.v-fail{color:#cf222e}.v-skipped{color:#9a6700}.v-not-tested{color:#57606a}.v-observed{color:#8250df}.v-not-run{color:#57606a}.v-error{color:#bc4c00}.v-out-of-scope{color:#8c959f}
.gate{padding:10px 12px;border-radius:6px;margin-bottom:12px;font-weight:600}.gate.passed{background:#dafbe1}.gate.failed{background:#ffebe9}
.partial{background:#fff8c5;border:1px solid #d4a72c;padding:8px;margin-bottom:12px}
details summary{cursor:pointer}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:8px;overflow:auto;max-height:320px;white-space:pre-wrap;word-break:break-all}
.test{margin:6px 0 10px}
.exchange.failed{border-left:3px solid #cf222e;padding-left:6px}
.failed-mark{color:#fff;background:#cf222e;border-radius:3px;padding:0 5px;font-size:12px}
.repro{border-left:3px solid #0969da;padding-left:6px;margin:6px 0}
.repro pre{margin:2px 0 6px}
.copy{font-size:12px;padding:1px 8px;border:1px solid #d0d7de;border-radius:6px;background:#fff;cursor:pointer}
.muted{color:#57606a}
`;

// Filters (search, level, plane, source, verdict; the MUST failures view sets two of them) keep
// their state in the URL hash, so a link reproduces a view; the count line counts the rows shown.
// The exchanges are stored once, gzipped (they are most of a report), and unpacked the first time
// a rule's tests are opened: a full run's page opens at once and stays small.
const SCRIPT = `
var rows = Array.prototype.slice.call(document.querySelectorAll('tr.rule'));
var FILTERS = ['q', 'level', 'plane', 'source', 'verdict'];
function field(name) { return document.getElementById('f-' + name); }
function state() { var s = {}; FILTERS.forEach(function (n) { s[n] = field(n).value.trim(); }); return s; }
function matches(row, s) {
  var v = row.dataset.verdict;
  if (s.verdict ? v !== s.verdict : v === 'out-of-scope') return false;
  if (s.level && row.dataset.level !== s.level) return false;
  if (s.plane && row.dataset.plane !== s.plane) return false;
  if (s.source && row.dataset.source !== s.source) return false;
  return !s.q || row.dataset.search.indexOf(s.q.toLowerCase()) >= 0;
}
function apply(fromHash) {
  var s = state(), shown = 0, byVerdict = {};
  rows.forEach(function (row) {
    var ok = matches(row, s);
    row.hidden = !ok;
    if (ok) { shown += 1; byVerdict[row.dataset.verdict] = (byVerdict[row.dataset.verdict] || 0) + 1; }
  });
  var parts = Object.keys(byVerdict).sort().map(function (v) { return v + ' ' + byVerdict[v]; });
  document.getElementById('shown-count').textContent = String(shown);
  document.getElementById('shown-verdicts').textContent = parts.length ? ' (' + parts.join(', ') + ')' : '';
  document.getElementById('must-view').classList.toggle('on', s.level === 'MUST' && s.verdict === 'fail' && !s.q && !s.plane && !s.source);
  if (fromHash) return;
  var hash = FILTERS.filter(function (n) { return s[n]; }).map(function (n) { return n + '=' + encodeURIComponent(s[n]); }).join('&');
  history.replaceState(null, '', hash ? '#' + hash : location.pathname + location.search);
}
function fromHash() {
  var h = location.hash.slice(1);
  if (h.indexOf('=') < 0) return;
  var given = {};
  h.split('&').forEach(function (pair) { var i = pair.indexOf('='); given[pair.slice(0, i)] = decodeURIComponent(pair.slice(i + 1)); });
  FILTERS.forEach(function (n) { field(n).value = given[n] || ''; });
}
fromHash();
apply(true);
FILTERS.forEach(function (n) { field(n).addEventListener('input', function () { apply(false); }); });
window.addEventListener('hashchange', function () { fromHash(); apply(true); });
document.getElementById('must-view').addEventListener('click', function () {
  var on = this.classList.contains('on');
  FILTERS.forEach(function (n) { field(n).value = ''; });
  if (!on) { field('level').value = 'MUST'; field('verdict').value = 'fail'; }
  apply(false);
});
document.addEventListener('click', function (e) {
  var b = e.target.closest && e.target.closest('button.copy');
  if (!b) return;
  var text = b.parentNode.querySelector('pre').textContent;
  var done = function () { b.textContent = 'copied'; setTimeout(function () { b.textContent = 'copy'; }, 1500); };
  var fallback = function () {
    var area = document.createElement('textarea'); area.value = text; document.body.appendChild(area); area.select();
    try { document.execCommand('copy'); done(); } finally { area.remove(); }
  };
  if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, fallback); else fallback();
});
var exchanges;
function unpack() {
  if (!exchanges) {
    var bytes = Uint8Array.from(atob(document.getElementById('exchange-data').textContent.trim()), function (c) { return c.charCodeAt(0); });
    exchanges = new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).json();
  }
  return exchanges;
}
function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
function headers(pairs) { return pairs.map(function (p) { return p[0] + ': ' + p[1]; }).join('\\n'); }
function exchangeBlock(id, x, failed) {
  if (!x) { var none = el('div', 'muted', 'exchange ' + id + ' (not recorded)'); if (failed) none.append(' ', el('span', 'failed-mark', 'failed')); return none; }
  var d = el('details', 'exchange' + (failed ? ' failed' : '')); d.open = failed;
  var s = el('summary');
  if (failed) s.append(el('span', 'failed-mark', 'failed'), ' ');
  s.append(el('code', '', id), ' ');
  if (x.delivery) s.append(el('span', 'muted', 'webhook delivery'), ' ');
  s.append(x.request.method + ' ' + x.request.url + ' → ', el('b', '', String(x.response.status)));
  d.append(s);
  if (x.violations.length) d.append(el('div', 'v-fail', 'contract violations: ' + x.violations.map(function (v) { return (v.at || '(body)') + ' ' + v.message; }).join('; ')));
  if (x.error) d.append(el('div', 'v-fail', x.error));
  d.append(el('pre', '', x.request.method + ' ' + x.request.url + '\\n' + headers(x.request.headers) + '\\n\\n' + (x.request.body || '')));
  d.append(el('pre', '', x.response.status + '\\n' + headers(x.response.headers) + '\\n\\n' + (x.response.body || '')));
  return d;
}
document.addEventListener('toggle', function (e) {
  var lists = e.target.open ? e.target.querySelectorAll('.exchanges:not([data-shown])') : [];
  if (!lists.length) return;
  Array.prototype.forEach.call(lists, function (list) { list.dataset.shown = '1'; list.textContent = 'unpacking the exchanges…'; });
  unpack().then(function (all) {
    Array.prototype.forEach.call(lists, function (list) {
      list.textContent = '';
      JSON.parse(list.dataset.ids).forEach(function (id) { list.append(exchangeBlock(id, all[id], id === list.dataset.failed)); });
    });
  }, function (error) {
    Array.prototype.forEach.call(lists, function (list) { list.textContent = 'This browser cannot unpack the exchanges (' + error + '): report.json and exchanges.har hold them.'; });
  });
}, true);
`;

/** A reproduction line with its copy button. */
function reproLine(label: string, text: string): string {
  return `<div>${esc(label)} <button class="copy" type="button">copy</button><pre>${esc(text)}</pre></div>`;
}

/** A test: its outcome, what reproduces a failure, and its exchanges (drawn from the stored ones when opened). */
function testBlock(test: TestOutcome): string {
  const detail = test.error ? `<pre class="v-fail">${esc(test.error)}</pre>` : test.reason ? `<div class="muted">${esc(test.reason)}</div>` : '';
  const observed = test.observed.map((o) => `<div class="v-observed">observed: ${esc(o)}</div>`).join('');
  const repro = test.reproduce
    ? `<div class="repro">${reproLine('Rerun this test:', test.reproduce.command)}${test.reproduce.curl ? reproLine(`Replay the failed request${test.reproduce.curl.includes('${') ? ' (set the environment variables it names first)' : ''}:`, test.reproduce.curl) : ''}</div>`
    : '';
  const exchanges =
    test.exchanges.length > 0
      ? `<div class="exchanges" data-ids="${esc(JSON.stringify(test.exchanges))}"${test.failedExchange ? ` data-failed="${esc(test.failedExchange)}"` : ''}></div>`
      : '';
  return `<div class="test"><span class="v v-${test.status === 'passed' ? 'pass' : test.status === 'skipped' ? 'skipped' : 'fail'}">${esc(test.status)}</span> ${esc(test.title)} <span class="muted">${esc(test.file)}</span>
${detail}${observed}${repro}${exchanges}</div>`;
}

function ruleRow(report: ConformanceReport, rule: RuleResult): string {
  const expectation = rule.expected ? `<div class="muted">expected on this target: ${esc(rule.expected.verdict)} (${esc(rule.expected.reason)})</div>` : '';
  const standing = standingOf(report, rule);
  const shown =
    standing.kind === 'failure' ||
    standing.kind === 'unjudged' ||
    standing.kind === 'error' ||
    standing.kind === 'expected' ||
    standing.kind === 'warning' ||
    standing.kind === 'interpretation';
  const surprise = shown
    ? `<div class="${standing.kind === 'failure' || standing.kind === 'unjudged' ? 'v-fail' : 'muted'} standing">${esc(standing.why)}</div>`
    : '';
  const none =
    rule.verdict === 'out-of-scope'
      ? 'its plane was not part of the run'
      : rule.verdict === 'not-run'
        ? (rule.reason ?? 'no test of this rule ran')
        : `no test checks this rule: ${rule.unobservable ?? rule.reason ?? 'none yet'}`;
  const tests = rule.tests.length > 0 ? rule.tests.map(testBlock).join('') : `<div class="muted">${esc(none)}</div>`;
  const section = sectionLabel(rule.section);
  // What the search looks in: the rule's id, section, statement and its tests' titles.
  const search = [rule.id, section, rule.text, ...rule.tests.map((t) => t.title)].join(' ').toLowerCase();
  return `<tr class="rule" id="${esc(rule.id)}" data-verdict="${rule.verdict}" data-source="${rule.source}" data-level="${rule.level}" data-plane="${rule.plane}" data-search="${esc(search)}">
<td class="v v-${rule.verdict}">${esc(rule.verdict)}</td><td><code>${esc(rule.id)}</code></td><td>${esc(rule.level)}</td><td class="src-${rule.source}">${esc(rule.source)}</td><td>${esc(rule.plane)}</td><td>${esc(section)}</td>
<td>${esc(rule.text)}${rule.baseline !== undefined && rule.baseline !== rule.verdict ? `<div class="muted">baseline: ${esc(rule.baseline)}</div>` : ''}${expectation}${surprise}<details><summary>${rule.tests.length} test(s)</summary>${tests}</details></td></tr>`;
}

/** The exchanges, once each, as gzipped JSON in base64: the page unpacks them when a rule's tests are opened. */
function exchangeData(report: ConformanceReport): string {
  const stored = Object.fromEntries(Object.entries(report.exchanges).map(([id, { test: _, ...exchange }]) => [id, exchange]));
  return gzipSync(JSON.stringify(stored), { level: 9 }).toString('base64');
}

/** A select of the values a filter takes, the empty value first (any). */
function select(name: string, any: string, values: { value: string; label: string }[]): string {
  return `<select id="f-${name}" aria-label="${esc(name)}"><option value="">${esc(any)}</option>${values.map((v) => `<option value="${esc(v.value)}">${esc(v.label)}</option>`).join('')}</select>`;
}

/** What the run created on the target and what its cleanup deleted, per endpoint and kind. */
function leftovers(report: ConformanceReport): string {
  const rows = Object.entries(report.run.created).flatMap(([endpoint, kinds]) =>
    Object.entries(kinds ?? {}).map(
      ([kind, n]) =>
        `<tr><td>${esc(endpoint)}</td><td>${esc(kind)}</td><td>${n}</td><td>${report.run.cleanedUp[endpoint as keyof typeof report.run.cleanedUp]?.[kind] ?? 0}</td><td>${report.run.left[endpoint as keyof typeof report.run.left]?.[kind] ?? 0}</td></tr>`,
    ),
  );
  if (rows.length === 0) return '';
  return `<details id="created"><summary>What the run created on the target (profile ${esc(report.run.profile)})</summary><table><thead><tr><th>endpoint</th><th>kind</th><th>created</th><th>cleaned up</th><th>left on the target</th></tr></thead><tbody>${rows.join('')}</tbody></table></details>`;
}

export function toHtml(report: ConformanceReport): string {
  const s = report.summary;
  const card = (label: string, value: string | number, cls = '') => `<div class="card ${cls}"><b>${esc(String(value))}</b>${esc(label)}</div>`;
  const present = (pick: (r: RuleResult) => string) => [...new Set(report.rules.map(pick))];
  const filters = `<div class="filters"><input id="f-q" type="search" placeholder="Search rule id or text" aria-label="search">
${select(
  'level',
  'any level',
  present((r) => r.level).map((v) => ({ value: v, label: v })),
)}
${select(
  'plane',
  'any plane',
  present((r) => r.plane).map((v) => ({ value: v, label: v })),
)}
${select(
  'source',
  'any source',
  present((r) => r.source).map((v) => ({ value: v, label: v === 'interpretation' ? 'interpretation (our reading)' : v })),
)}
${select(
  'verdict',
  'any verdict in scope',
  VERDICTS.filter((v) => s.verdicts[v] > 0).map((v) => ({ value: v, label: v })),
)}
<button id="must-view" type="button">MUST failures (${s.mustFailures})</button></div>
<div id="shown"><span id="shown-count">${s.rules}</span> rules shown<span id="shown-verdicts"></span></div>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Conformance report: ${esc(report.target.name)}</title><style>${STYLE}</style></head>
<body><header><h1>Agent Platform API conformance: ${esc(report.target.name)}</h1>
<div class="muted">${esc(report.target.kind)} · planes ${esc(report.target.planes.join(', ') || 'none')} · capabilities ${esc(report.target.capabilities.join(', ') || 'none')} · profile ${esc(report.run.profile)} · seed ${esc(report.seed)} · ${esc(report.tool.name)} ${esc(report.tool.version)}</div></header>
<main>
<div class="gate ${s.gate.passed ? 'passed' : 'failed'}" id="gate">${s.gate.passed ? 'Passed' : 'Failed'} (exit ${s.gate.exitCode}): ${esc(s.gate.reasons.join('; '))}</div>
${s.baseline ? `<div class="muted" id="baseline">Against ${esc(s.baseline.file)}: ${s.baseline.regressions.length} regressions (${esc(s.baseline.regressions.map((c) => c.id).join(', ') || 'none')}), ${(s.baseline.lost ?? []).length} verdicts lost (${esc((s.baseline.lost ?? []).map((c) => c.id).join(', ') || 'none')}), ${s.baseline.fixes.length} fixed (${esc(s.baseline.fixes.map((c) => c.id).join(', ') || 'none')})${esc(notComparedNote(report))}</div>` : ''}
${narrowedLine(report) ? `<div class="partial" id="narrowed">${esc(narrowedLine(report)!)}</div>` : ''}
${retriesLine(report) ? `<div class="muted" id="retries">${esc(retriesLine(report)!)}</div>` : ''}
<div class="${(s.mustNotJudged ?? []).some((n) => n.counted) ? 'partial' : 'muted'}" id="not-judged">${esc(notJudgedLine(report))}</div>
${report.run.status === 'complete' ? '' : `<div class="partial"><b>Partial report:</b> ${esc(report.run.reason ?? report.run.status)}; ${s.verdicts['not-run']} rules not run.</div>`}
${report.run.shard ? `<div class="partial"><b>Shard ${esc(report.run.shard)}</b> of a run: rules tested in the other shards are not-run here; <code>merge</code> joins the shards' reports.</div>` : ''}
<div class="cards" id="summary">${card('rules in scope', s.rules)}${s.outOfScope ? card('out of scope', s.outOfScope, 'v-out-of-scope') : ''}${card('with a test', `${s.covered} (${(s.coverage * 100).toFixed(1)}%)`)}${card('pass', s.verdicts.pass, 'v-pass')}${card('fail', s.verdicts.fail, 'v-fail')}${card('MUST failures', s.mustFailures, 'v-fail')}${card('interpretations failed (warnings)', s.interpretationFailures, 'src-interpretation')}${s.verdicts.error ? card('not judged', s.verdicts.error, 'v-error') : ''}${card('skipped', s.verdicts.skipped, 'v-skipped')}${card('not tested', s.verdicts['not-tested'], 'v-not-tested')}${card('observed', s.verdicts.observed, 'v-observed')}${s.verdicts['not-run'] ? card('not run', s.verdicts['not-run'], 'v-not-run') : ''}</div>
${leftovers(report)}
${filters}
<table id="rules"><thead><tr><th>verdict</th><th>rule</th><th>level</th><th>source</th><th>plane</th><th>§</th><th>statement, tests and exchanges</th></tr></thead>
<tbody>${report.rules.map((r) => ruleRow(report, r)).join('\n')}</tbody></table>
</main><script type="application/octet-stream" id="exchange-data">${exchangeData(report)}</script><script>${SCRIPT}</script></body></html>
`;
}
