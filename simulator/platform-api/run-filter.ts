// The filter expressions of POST /runs/query (`filter`, `trace_filter`, `tree_filter`), as the official client sends
// them (langsmith JS client listRuns; LangSmith docs, "Run (span) data format" and "Query traces": the filter query
// language): `eq(name, "x")`, `and(eq(run_type, "llm"), gt(start_time, "2026-01-01T00:00:00Z"))`, `has(tags, "t")`.
// The simulator applies the part of the language it knows and refuses, naming it, a part it does not: a filter it
// ignored would answer runs the caller did not ask for. Plain functions, no HTTP.

type Json = Record<string, unknown>;

/** A parsed expression: a call of a comparator or a combinator. */
export type FilterExpression =
  | { op: 'and' | 'or'; args: FilterExpression[] }
  | { op: 'not'; arg: FilterExpression }
  | { op: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'has'; field: string; value: string | number | boolean | null };

/** What a filter is refused with: the part named, in words. */
export class FilterError extends Error {}

const COMPARATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'has'] as const;
/** The fields a comparator may name, as a run reads (its view); `has` takes the list fields. */
const SCALAR_FIELDS = ['id', 'name', 'run_type', 'status', 'trace_id', 'parent_run_id', 'session_id', 'thread_id', 'start_time', 'end_time', 'error'];
const LIST_FIELDS = ['tags'];
const TIME_FIELDS = new Set(['start_time', 'end_time']);

/** Parses a filter, or throws a FilterError naming the part it does not know. */
export function parseFilter(text: string): FilterExpression {
  const tokens = tokenize(text);
  let at = 0;
  const peek = () => tokens[at];
  const next = () => tokens[at++];
  const expect = (value: string) => {
    const token = next();
    if (token?.value !== value) throw new FilterError(`expected '${value}' ${token ? `before '${token.value}'` : 'at the end'} in ${JSON.stringify(text)}`);
  };
  const literal = (): string | number | boolean | null => {
    const token = next();
    if (!token) throw new FilterError(`a value is missing at the end of ${JSON.stringify(text)}`);
    if (token.kind === 'string') return token.value;
    if (token.kind === 'number') return Number(token.value);
    if (token.value === 'true' || token.value === 'false') return token.value === 'true';
    if (token.value === 'null') return null;
    throw new FilterError(`'${token.value}' is not a value (a quoted string, a number, true, false or null)`);
  };
  const call = (): FilterExpression => {
    const name = next();
    if (name?.kind !== 'word') throw new FilterError(`expected an operator in ${JSON.stringify(text)}`);
    const op = name.value;
    expect('(');
    if (op === 'and' || op === 'or') {
      const args = [call()];
      while (peek()?.value === ',') {
        next();
        args.push(call());
      }
      expect(')');
      return { op, args };
    }
    if (op === 'not') {
      const arg = call();
      expect(')');
      return { op, arg };
    }
    if (!(COMPARATORS as readonly string[]).includes(op))
      throw new FilterError(`the operator '${op}' (the simulator applies and, or, not, ${COMPARATORS.join(', ')})`);
    const field = next();
    if (field?.kind !== 'word') throw new FilterError(`${op}() names no field`);
    const fields = op === 'has' ? LIST_FIELDS : SCALAR_FIELDS;
    if (!fields.includes(field.value)) throw new FilterError(`the field '${field.value}' in ${op}() (the simulator compares ${fields.join(', ')} there)`);
    expect(',');
    const value = literal();
    expect(')');
    return { op: op as (typeof COMPARATORS)[number], field: field.value, value };
  };
  const expression = call();
  if (at < tokens.length) throw new FilterError(`'${tokens[at].value}' after the end of the expression ${JSON.stringify(text)}`);
  return expression;
}

/** Whether a run (as read: its view, status and tags included) satisfies the expression. */
export function matchesFilter(expression: FilterExpression, run: Json): boolean {
  switch (expression.op) {
    case 'and':
      return expression.args.every((e) => matchesFilter(e, run));
    case 'or':
      return expression.args.some((e) => matchesFilter(e, run));
    case 'not':
      return !matchesFilter(expression.arg, run);
    case 'has': {
      const list = run[expression.field];
      return Array.isArray(list) && list.includes(expression.value);
    }
    default: {
      const actual = fieldValue(run, expression.field);
      const wanted = TIME_FIELDS.has(expression.field) && typeof expression.value === 'string' ? Date.parse(expression.value) : expression.value;
      if (expression.op === 'eq') return actual === wanted;
      if (expression.op === 'neq') return actual !== wanted;
      if (actual === null || actual === undefined || wanted === null || typeof actual !== typeof wanted) return false;
      const order = (actual as number | string) < (wanted as number | string) ? -1 : (actual as number | string) > (wanted as number | string) ? 1 : 0;
      return expression.op === 'gt' ? order > 0 : expression.op === 'gte' ? order >= 0 : expression.op === 'lt' ? order < 0 : order <= 0;
    }
  }
}

/** A field as compared: times as epoch ms, ids lower case. */
function fieldValue(run: Json, field: string): unknown {
  const value = run[field];
  if (TIME_FIELDS.has(field) && typeof value === 'string') return Date.parse(value);
  return value ?? null;
}

interface Token {
  kind: 'word' | 'string' | 'number' | 'punct';
  value: string;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) i++;
    else if (c === '(' || c === ')' || c === ',') tokens.push({ kind: 'punct', value: text[i++] });
    else if (c === '"' || c === "'") {
      let value = '';
      i++;
      while (i < text.length && text[i] !== c) {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        value += text[i++];
      }
      if (i >= text.length) throw new FilterError(`an unterminated string in ${JSON.stringify(text)}`);
      i++;
      tokens.push({ kind: 'string', value });
    } else {
      const match = /^(-?\d+(\.\d+)?(?![\w-])|[A-Za-z_][\w.]*)/.exec(text.slice(i));
      if (!match) throw new FilterError(`'${c}' at ${i} in ${JSON.stringify(text)}`);
      tokens.push({ kind: /^-?\d/.test(match[0]) ? 'number' : 'word', value: match[0] });
      i += match[0].length;
    }
  }
  return tokens;
}
