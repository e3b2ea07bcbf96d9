// A self-contained HTML page: summary, filters, and per rule its tests and the recorded
// exchanges that prove the verdict. No external resources, so it opens from a CI artifact.
// Each rule shows its source; interpretations (our reading, not the spec's or the service's)
// have their own count and filter, and their failures are warnings.
import { narrowedLine, notJudgedLine } from './console.ts';
import { escapeXml as esc } from './escape.ts';
import { standingOf } from './standing.ts';
import type { ConformanceReport, RecordedExchange, RuleResult, TestOutcome } from './model.ts';

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f8fa}
header{background:#fff;border-bottom:1px solid #d0d7de;padding:16px 24px}
h1{font-size:20px;margin:0 0 4px}
main{padding:16px 24px}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}
.card{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:8px 14px;min-width:90px}
.card b{display:block;font-size:22px}
.filters button{margin:0 6px 6px 0;padding:4px 10px;border:1px solid #d0d7de;border-radius:14px;background:#fff;cursor:pointer}
.filters button.on{background:#0969da;color:#fff;border-color:#0969da}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border-bottom:1px solid #d0d7de;padding:6px 8px;text-align:left;vertical-align:top}
.v{font-weight:600;white-space:nowrap}
.src-interpretation{font-style:italic;color:#8250df}
.v-pass{color:#1a7f37}.v-fail{color:#cf222e}.v-skipped{color:#9a6700}.v-not-tested{color:#57606a}.v-observed{color:#8250df}.v-not-run{color:#57606a}.v-error{color:#bc4c00}.v-out-of-scope{color:#8c959f}
.gate{padding:10px 12px;border-radius:6px;margin-bottom:12px;font-weight:600}.gate.passed{background:#dafbe1}.gate.failed{background:#ffebe9}
tr.rule[data-verdict=out-of-scope]{display:none}
.partial{background:#fff8c5;border:1px solid #d4a72c;padding:8px;margin-bottom:12px}
details summary{cursor:pointer}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:8px;overflow:auto;max-height:320px;white-space:pre-wrap;word-break:break-all}
.test{margin:6px 0 10px}
.exchange.failed{border-left:3px solid #cf222e;padding-left:6px}
.failed-mark{color:#fff;background:#cf222e;border-radius:3px;padding:0 5px;font-size:12px}
.muted{color:#57606a}
`;

const SCRIPT = `
document.querySelectorAll('.filters button').forEach(function (b) {
  b.addEventListener('click', function () {
    document.querySelectorAll('.filters button').forEach(function (x) { x.classList.remove('on'); });
    b.classList.add('on');
    var v = b.getAttribute('data-verdict');
    var src = b.getAttribute('data-source');
    document.querySelectorAll('tr.rule').forEach(function (row) {
      var rv = row.getAttribute('data-verdict');
      var shown = src ? rv !== 'out-of-scope' && row.getAttribute('data-source') === src : (v === 'all' && rv !== 'out-of-scope') || rv === v;
      row.style.display = shown ? '' : 'none';
    });
  });
});
`;

/** An exchange, folded; the one a failure names is marked, and open. A delivery says it went from the target to the receiver. */
function exchangeBlock(e: RecordedExchange | undefined, id: string, failed: boolean): string {
  if (!e) return `<div class="muted">exchange ${esc(id)} (not recorded)${failed ? ' <span class="failed-mark">failed</span>' : ''}</div>`;
  const headers = (pairs: [string, string][]) => pairs.map(([n, v]) => `${n}: ${v}`).join('\n');
  const violations =
    e.violations.length > 0
      ? `<div class="v-fail">contract violations: ${esc(e.violations.map((v) => `${v.at || '(body)'} ${v.message}`).join('; '))}</div>`
      : '';
  const mark = failed ? '<span class="failed-mark">failed</span> ' : '';
  const kind = e.delivery ? '<span class="muted">webhook delivery</span> ' : '';
  return `<details class="exchange${failed ? ' failed' : ''}"${failed ? ' open' : ''}><summary>${mark}<code>${esc(id)}</code> ${kind}${esc(e.request.method)} ${esc(e.request.url)} → <b>${e.response.status}</b></summary>
${violations}<pre>${esc(`${e.request.method} ${e.request.url}\n${headers(e.request.headers)}\n\n${e.request.body ?? ''}`)}</pre>
<pre>${esc(`${e.response.status}\n${headers(e.response.headers)}\n\n${e.response.body ?? ''}`)}</pre></details>`;
}

function testBlock(report: ConformanceReport, test: TestOutcome): string {
  const detail = test.error ? `<pre class="v-fail">${esc(test.error)}</pre>` : test.reason ? `<div class="muted">${esc(test.reason)}</div>` : '';
  const observed = test.observed.map((o) => `<div class="v-observed">observed: ${esc(o)}</div>`).join('');
  return `<div class="test"><span class="v v-${test.status === 'passed' ? 'pass' : test.status === 'skipped' ? 'skipped' : 'fail'}">${esc(test.status)}</span> ${esc(test.title)} <span class="muted">${esc(test.file)}</span>
${detail}${observed}${test.exchanges.map((id) => exchangeBlock(report.exchanges[id], id, id === test.failedExchange)).join('\n')}</div>`;
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
  const tests = rule.tests.length > 0 ? rule.tests.map((t) => testBlock(report, t)).join('') : `<div class="muted">${esc(none)}</div>`;
  return `<tr class="rule" id="${esc(rule.id)}" data-verdict="${rule.verdict}" data-source="${rule.source}">
<td class="v v-${rule.verdict}">${esc(rule.verdict)}</td><td><code>${esc(rule.id)}</code></td><td>${esc(rule.level)}</td><td class="src-${rule.source}">${esc(rule.source)}</td><td>${esc(rule.plane)}</td><td>§${esc(rule.section)}</td>
<td>${esc(rule.text)}${rule.baseline !== undefined && rule.baseline !== rule.verdict ? `<div class="muted">baseline: ${esc(rule.baseline)}</div>` : ''}${expectation}${surprise}<details><summary>${rule.tests.length} test(s)</summary>${tests}</details></td></tr>`;
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
  const filters = `${[
    'all',
    'fail',
    'pass',
    ...(s.verdicts.error ? ['error'] : []),
    'skipped',
    'not-tested',
    'observed',
    ...(s.verdicts['not-run'] ? ['not-run'] : []),
    ...(s.outOfScope ? ['out-of-scope'] : []),
  ]
    .map((v, i) => `<button data-verdict="${v}" class="${i === 0 ? 'on' : ''}">${v}</button>`)
    .join('')}<button data-source="interpretation">interpretations (${s.bySource.interpretation.rules})</button>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Conformance report: ${esc(report.target.name)}</title><style>${STYLE}</style></head>
<body><header><h1>Agent Platform API conformance: ${esc(report.target.name)}</h1>
<div class="muted">${esc(report.target.kind)} · planes ${esc(report.target.planes.join(', ') || 'none')} · capabilities ${esc(report.target.capabilities.join(', ') || 'none')} · profile ${esc(report.run.profile)} · seed ${esc(report.seed)} · ${esc(report.tool.name)} ${esc(report.tool.version)}</div></header>
<main>
<div class="gate ${s.gate.passed ? 'passed' : 'failed'}" id="gate">${s.gate.passed ? 'Passed' : 'Failed'} (exit ${s.gate.exitCode}): ${esc(s.gate.reasons.join('; '))}</div>
${s.baseline ? `<div class="muted" id="baseline">Against ${esc(s.baseline.file)}: ${s.baseline.regressions.length} regressions (${esc(s.baseline.regressions.map((c) => c.id).join(', ') || 'none')}), ${(s.baseline.lost ?? []).length} verdicts lost (${esc((s.baseline.lost ?? []).map((c) => c.id).join(', ') || 'none')}), ${s.baseline.fixes.length} fixed (${esc(s.baseline.fixes.map((c) => c.id).join(', ') || 'none')})</div>` : ''}
${narrowedLine(report) ? `<div class="partial" id="narrowed">${esc(narrowedLine(report)!)}</div>` : ''}
<div class="${(s.mustNotJudged ?? []).some((n) => n.counted) ? 'partial' : 'muted'}" id="not-judged">${esc(notJudgedLine(report))}</div>
${report.run.status === 'complete' ? '' : `<div class="partial"><b>Partial report:</b> ${esc(report.run.reason ?? report.run.status)}; ${s.verdicts['not-run']} rules not run.</div>`}
${report.run.shard ? `<div class="partial"><b>Shard ${esc(report.run.shard)}</b> of a run: rules tested in the other shards are not-run here; <code>merge</code> joins the shards' reports.</div>` : ''}
<div class="cards" id="summary">${card('rules in scope', s.rules)}${s.outOfScope ? card('out of scope', s.outOfScope, 'v-out-of-scope') : ''}${card('with a test', `${s.covered} (${(s.coverage * 100).toFixed(1)}%)`)}${card('pass', s.verdicts.pass, 'v-pass')}${card('fail', s.verdicts.fail, 'v-fail')}${card('MUST failures', s.mustFailures, 'v-fail')}${card('interpretations failed (warnings)', s.interpretationFailures, 'src-interpretation')}${s.verdicts.error ? card('not judged', s.verdicts.error, 'v-error') : ''}${card('skipped', s.verdicts.skipped, 'v-skipped')}${card('not tested', s.verdicts['not-tested'], 'v-not-tested')}${card('observed', s.verdicts.observed, 'v-observed')}${s.verdicts['not-run'] ? card('not run', s.verdicts['not-run'], 'v-not-run') : ''}</div>
${leftovers(report)}
<div class="filters">${filters}</div>
<table id="rules"><thead><tr><th>verdict</th><th>rule</th><th>level</th><th>source</th><th>plane</th><th>§</th><th>statement, tests and exchanges</th></tr></thead>
<tbody>${report.rules.map((r) => ruleRow(report, r)).join('\n')}</tbody></table>
</main><script>${SCRIPT}</script></body></html>
`;
}
