// Regression gating: a rule that passed in an earlier report and does not pass now.
import type { ConformanceReport, Verdict } from './model.ts';

export interface Regression {
  id: string;
  before: Verdict;
  after: Verdict | 'missing';
}

export function compareToBaseline(before: ConformanceReport, after: ConformanceReport): Regression[] {
  const now = new Map(after.rules.map((r) => [r.id, r.verdict]));
  return before.rules
    .filter((r) => r.verdict === 'pass')
    .map((r) => ({ id: r.id, before: r.verdict, after: now.get(r.id) ?? ('missing' as const) }))
    .filter((r) => r.after === 'fail' || r.after === 'missing');
}
