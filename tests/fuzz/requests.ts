// Malformed requests for every operation of the contract: a request a client could send, with
// one or more things broken (percent-encodings, types, sizes, nesting, content types and
// encodings, methods, credentials). Every operation, path and query parameter and body field
// comes from specs/: nothing here names an endpoint.
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { contract, planeOf, type Endpoint, type Operation } from '../../specs/contract.ts';
import { resolve, schemaValue, type Schema } from './schema-values.ts';

export interface FuzzRequest {
  /** The documented operation the request was made from. */
  operation: Operation;
  method: string;
  /** The raw request target, sent as is (malformed encodings included). */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** What was broken, for the report of a counterexample. */
  broken: string[];
}

/** What the fuzz may put where a well-formed request has an id or a credential. */
export interface FuzzContext {
  /** Ids of resources that exist on the target, by path parameter name (thread_id, run_id, …). */
  ids: Record<string, string[]>;
  /** A key the endpoint accepts, sent as X-Api-Key (none: the endpoint takes no key). */
  apiKey?: string;
  /** A key of another region or workspace, and the workspaces the key opens. */
  otherKey?: string;
  tenants: string[];
}

const BAD_ENCODINGS = ['%', '%f', '%ff', '%00', '%00%ff', '%c3%28', '%E2%82', '%%', '%2F', '%u00e9', '..', '.'];
const WRONG_VALUES: unknown[] = [null, 0, -1, 1.5, 1e308, -1e308, '', 'x', 'é\u0000', true, [], {}, [[]], { '': null }, '9'.repeat(400)];
const ODD_METHODS = ['HEAD', 'OPTIONS', 'PUT', 'PATCH', 'DELETE', 'POST', 'GET', 'PROPFIND', 'MKCOL', 'PURGE'];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'application/json; charset=utf-16',
  'application/octet-stream',
  '*/*',
  ';;;',
];
const MiB = 1024 * 1024;

/** Path parameters: an existing id, a well-formed unknown one, or a malformed one. */
function pathValue(name: string, context: FuzzContext): fc.Arbitrary<{ value: string; broken?: string }> {
  const known = context.ids[name] ?? [];
  return fc.oneof(
    { weight: 4, arbitrary: known.length > 0 ? fc.constantFrom(...known).map((value) => ({ value })) : fc.uuid().map((value) => ({ value })) },
    { weight: 1, arbitrary: fc.uuid().map((value) => ({ value })) },
    { weight: 2, arbitrary: fc.constantFrom(...BAD_ENCODINGS).map((value) => ({ value, broken: `path ${name}=${value}` })) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(fc.string({ maxLength: 40 }), fc.constant('x'.repeat(5000)), fc.integer().map(String))
        .map((raw) => ({ value: encodeURIComponent(raw), broken: `path ${name} not an id` })),
    },
  );
}

/** A query string for the operation's parameters, some of them broken, plus strays. */
function queryOf(op: Operation): fc.Arbitrary<{ query: string; broken: string[] }> {
  const params = (op.document.parameters ?? []).filter((p) => p.in === 'query');
  type Part = { text: string; broken?: string };
  const one = (p: { name: string; schema?: unknown }): fc.Arbitrary<Part> =>
    fc.oneof<fc.MaybeWeightedArbitrary<Part>[]>(
      {
        weight: 3,
        arbitrary: schemaValue(op.plane, p.schema as Schema).map((v) => ({
          text: `${p.name}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`,
        })),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(...WRONG_VALUES).map((v) => ({ text: `${p.name}=${encodeURIComponent(String(v))}`, broken: `query ${p.name} mistyped` })),
      },
      { weight: 1, arbitrary: fc.constantFrom(...BAD_ENCODINGS).map((v) => ({ text: `${p.name}=${v}`, broken: `query ${p.name}=${v}` })) },
      { weight: 1, arbitrary: fc.constant({ text: `${p.name}=1&${p.name}=2`, broken: `query ${p.name} repeated` }) },
      { weight: 1, arbitrary: fc.constant({ text: '' }) },
    );
  const stray = fc.constantFrom('%ff=1', '=', '&&', 'a[b]=c', '%00', `${'k'.repeat(2000)}=v`).map((text) => ({ text, broken: `query ${text.slice(0, 12)}` }));
  return fc.tuple(fc.tuple(...params.map(one)), fc.option(stray, { freq: 4 })).map(([parts, extra]) => {
    const all = [...parts, ...(extra ? [extra] : [])];
    return {
      query: all
        .map((p) => p.text)
        .filter(Boolean)
        .join('&'),
      broken: all.flatMap((p) => (p.broken ? [p.broken] : [])),
    };
  });
}

/** Every dotted path to a value inside a JSON value. */
function pathsIn(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return prefix.length > 0 ? [prefix] : [];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  return [...(prefix.length > 0 ? [prefix] : []), ...entries.flatMap(([key, v]) => pathsIn(v, [...prefix, key]))];
}

function replaceAt(value: unknown, path: string[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string, unknown>;
  copy[path[0]] = replaceAt(copy[path[0]], path.slice(1), replacement);
  return copy;
}

function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** A JSON body for the operation: the schema's value, with at most one thing broken. */
function bodyOf(op: Operation): fc.Arbitrary<{ body?: Buffer; contentType?: string; broken: string[] }> {
  const content = op.document.requestBody?.content ?? {};
  const schema = content['application/json']?.schema as Schema | undefined;
  const multipart = Object.keys(content).some((type) => type.startsWith('multipart/'));
  const valid = schema ? schemaValue(op.plane, schema) : fc.constant(undefined);
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  return valid.chain((value) => {
    const fields = pathsIn(value);
    const breaks: fc.WeightedArbitrary<{ body?: Buffer; broken: string[] }>[] = [
      { weight: 3, arbitrary: fc.constant({ body: value === undefined ? undefined : json(value), broken: [] }) },
      { weight: 1, arbitrary: fc.constantFrom(...WRONG_VALUES).map((top) => ({ body: json(top), broken: ['body of the wrong type'] })) },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom('{', '{"a":', 'nul', '[1,]', '{"a":1}{', '\u0000', '"\\ud800"')
          .map((text) => ({ body: Buffer.from(text), broken: [`body not JSON: ${text}`] })),
      },
      { weight: 1, arbitrary: fc.constant({ body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), broken: ['body not UTF-8'] }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(200, 5_000, 100_000).map((depth) => ({ body: Buffer.from(nested(depth)), broken: [`body nested ${depth} deep`] })),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(1, 17).map((mib) => ({ body: Buffer.from(`{"a":"${'x'.repeat(mib * MiB)}"}`), broken: [`body of ${mib} MiB`] })),
      },
    ];
    if (fields.length > 0) {
      breaks.push({
        weight: 4,
        arbitrary: fc
          .tuple(fc.constantFrom(...fields), fc.constantFrom(...WRONG_VALUES))
          .map(([path, wrong]) => ({ body: json(replaceAt(value, path, wrong)), broken: [`body ${path.join('.')} = ${JSON.stringify(wrong)?.slice(0, 20)}`] })),
      });
    }
    const required = resolve(op.plane, schema).required ?? [];
    if (required.length > 0 && value && typeof value === 'object') {
      breaks.push({
        weight: 2,
        arbitrary: fc.constantFrom(...required).map((name) => {
          const { [name]: _dropped, ...rest } = value as Record<string, unknown>;
          return { body: json(rest), broken: [`body without ${name}`] };
        }),
      });
    }
    if (multipart) {
      breaks.push({
        weight: 4,
        arbitrary: fc
          .constantFrom(
            '--b\r\nContent-Disposition: form-data; name="post"\r\n\r\n{',
            '--b--',
            '--x\r\n\r\n',
            '--b\r\nContent-Disposition: form-data; name="post.1"\r\n\r\n{}\r\n--b',
          )
          .map((text) => ({ body: Buffer.from(text), contentType: 'multipart/form-data; boundary=b', broken: ['multipart malformed'] })),
      });
    }
    return fc.oneof(...breaks);
  });
}

/** Headers: the credential, a tenant, a content type and an encoding, any of them broken. */
function headersOf(context: FuzzContext, hasBody: boolean): fc.Arbitrary<{ headers: Record<string, string>; broken: string[]; gzip: boolean }> {
  type Headers = Record<string, string>;
  const key = fc.oneof<fc.MaybeWeightedArbitrary<Headers>[]>(
    { weight: 8, arbitrary: fc.constant<Headers>(context.apiKey === undefined ? {} : { 'x-api-key': context.apiKey }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Headers>(
        {},
        { 'x-api-key': '' },
        { 'x-api-key': 'lsv2_sk_not_a_key' },
        { authorization: 'Bearer' },
        { authorization: 'Basic %%%' },
      ),
    },
    { weight: 1, arbitrary: fc.constant<Headers>(context.otherKey === undefined ? {} : { 'x-api-key': context.otherKey }) },
  );
  const tenant = fc.oneof<fc.MaybeWeightedArbitrary<Headers>[]>(
    { weight: 6, arbitrary: fc.constant<Headers>({}) },
    { weight: 2, arbitrary: context.tenants.length > 0 ? fc.constantFrom(...context.tenants).map((t) => ({ 'x-tenant-id': t })) : fc.constant<Headers>({}) },
    { weight: 1, arbitrary: fc.constantFrom('', 'not-a-uuid', '00000000-0000-0000-0000-000000000000', 'a, b').map((t) => ({ 'x-tenant-id': t })) },
  );
  const type = hasBody
    ? fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) })
    : fc.option(fc.constantFrom(...CONTENT_TYPES), { freq: 5 });
  const encoding = fc.oneof(
    { weight: 8, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom('gzip', 'br', 'deflate', 'bogus', 'gzip, gzip') },
  );
  return fc.tuple(key, tenant, type, encoding).map(([k, t, contentType, contentEncoding]) => {
    const headers: Record<string, string> = { ...k, ...t };
    const broken: string[] = [];
    if (contentType) headers['content-type'] = contentType;
    if (contentType && contentType !== 'application/json') broken.push(`content-type ${contentType}`);
    if (contentEncoding) {
      headers['content-encoding'] = contentEncoding;
      broken.push(`content-encoding ${contentEncoding}`);
    }
    if (!('x-api-key' in k) || k['x-api-key'] !== context.apiKey) broken.push('credential');
    return { headers, broken, gzip: contentEncoding === 'gzip' };
  });
}

/** Malformed requests to the documented operations of an endpoint's plane. */
export function fuzzRequests(endpoint: Endpoint, context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const operations = contract().operations.filter((op) => op.plane === planeOf(endpoint));
  return fc.constantFrom(...operations).chain((op) => {
    const names = op.served[0].paramNames;
    return fc
      .record({
        served: fc.constantFrom(...op.served),
        params: fc.tuple(...names.map((name) => pathValue(name, context))),
        query: queryOf(op),
        body: bodyOf(op),
        method: fc.oneof({ weight: 9, arbitrary: fc.constant(op.method.toUpperCase()) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_METHODS) }),
        gzipValid: fc.boolean(),
      })
      .chain((parts) =>
        headersOf(context, parts.body.body !== undefined).map((headers) => {
          let i = 0;
          const path = parts.served.path.replace(/\{[^}]+\}/g, () => parts.params[i++].value);
          const target = parts.query.query ? `${path}?${parts.query.query}` : path;
          // gzip: half the time the body really is gzip, half the time it only says so.
          const body = headers.gzip && parts.gzipValid && parts.body.body ? gzipSync(parts.body.body) : parts.body.body;
          const contentType = parts.body.contentType ?? headers.headers['content-type'];
          return {
            [fc.toStringMethod]() {
              return `${this.method} ${this.path.slice(0, 160)} [${this.broken.join('; ')}]`;
            },
            operation: op,
            method: parts.method,
            path: target,
            headers: { ...headers.headers, ...(contentType ? { 'content-type': contentType } : {}) },
            body,
            broken: [
              `${op.operationId}`,
              ...(parts.method !== op.method.toUpperCase() ? [`method ${parts.method}`] : []),
              ...parts.params.flatMap((p) => (p.broken ? [p.broken] : [])),
              ...parts.query.broken,
              ...parts.body.broken,
              ...headers.broken,
            ],
          };
        }),
      );
  });
}
