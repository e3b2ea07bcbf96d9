// Mechanical mutations, generated from the contract. Where a schema property of specs/openapi
// names the rule about it (`x-rule`), broken targets follow from the schema alone:
// - a request field whose valid value the target refuses (422): the request a rule judges must be
//   judged, never taken as a precondition;
// - a request field the target ignores (optional fields: a required one missing is refused anyway);
// - a request field the target takes mistyped (it answers as if the body were valid);
// - a response (or webhook delivery) field dropped;
// - a response (or webhook delivery) field of another type.
// What a request field's rule says (`x-rule-about` on the property) picks the request mutations:
// `type` (the default) all three, `effect` (what the field does, not how it is typed) refusing and
// ignoring, `accepted` refusing only.
// An answered field mistyped, or left out where required, breaks besides its own rule the `x-rule`
// of every node it sits in (a Repository's field breaks REPO-LIST); left out, also what its object's
// `x-implements` lists (the `required` constraint among them: REPO-FIELDS-REQUIRED).
// A request schema names in `x-mistyped-rule` the rule a field of the wrong type breaks when the
// target takes it (its own and its nested schemas' fields): where the field's rule states only what
// the field is, refusing a wrong value is another rule's (UPLOAD-VIOLATION-4XX, a SHOULD).
// An operation's documented status, or a query parameter, with an `x-rule` gives a mutation too: another
// success status answered, the parameter ignored.
// Each mutation expects to fail exactly those rules (trial-groups.ts says which tests it is tried on). Hand-written mutations
// (the other files) break behaviour.
import { contract, type Endpoint, type Plane, type RuleAbout, type SchemaAnnotations } from '../../../specs/contract.ts';
import type { MutableRequest, MutableResponse, Mutation } from '../broken-target.ts';
import { json, jsonError } from './support.ts';

interface Schema extends SchemaAnnotations {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  [key: string]: unknown;
}

/** A field the contract ties to a rule, where an operation sends or answers it. */
interface FieldSite {
  plane: Plane;
  /** The operation, or the webhook the server sends (`delivery`). */
  operationId: string;
  direction: 'request' | 'response' | 'delivery';
  /** The documented status of the answer holding the field (responses only). */
  status?: number;
  /** Keys from the body down to the field; '*' steps into every item of an array. */
  path: string[];
  rule: string;
  required: boolean;
  schema: Schema;
  /** The `x-rule` of each node the field sits in. */
  shapeRules: string[];
  /** What the objects holding the field as required implement (their `x-implements`). */
  requiredRules: string[];
  /** What the field's rule says (x-rule-about, else type). */
  about: RuleAbout;
  /** The rule a mistyped value taken breaks (the nearest enclosing x-mistyped-rule), else the field's. */
  mistypedRule?: string;
}

function resolve(plane: Plane, schema: Schema): Schema {
  let current = schema;
  for (let depth = 0; current.$ref && depth < 10; depth++) {
    const name = current.$ref.split('/').pop() as string;
    current = (contract().documents[plane].components?.schemas?.[name] ?? {}) as Schema;
  }
  return current;
}

/** Every field with a rule reachable from a body schema, with the rules of the objects it sits in. */
type SiteBase = Pick<FieldSite, 'plane' | 'operationId' | 'direction' | 'status'>;

function sitesIn(plane: Plane, root: Schema, base: SiteBase): FieldSite[] {
  const found: FieldSite[] = [];
  const walk = (node: Schema, path: string[], shapeRules: string[], requiredRules: string[], mistyped: string | undefined, seen: Set<Schema>) => {
    const schema = resolve(plane, node);
    if (seen.has(schema)) return;
    const inside = new Set(seen).add(schema);
    const mistypedRule = schema['x-mistyped-rule'] ?? mistyped;
    const own = node['x-rule'] ?? schema['x-rule'];
    const shape = own ? [...shapeRules, own] : shapeRules;
    if (schema.items) walk(schema.items, [...path, '*'], shape, requiredRules, mistypedRule, inside);
    for (const [name, child] of Object.entries(schema.properties ?? {})) {
      const required = (schema.required ?? []).includes(name);
      const requiredBy = required ? [...requiredRules, ...(schema['x-implements'] ?? [])] : requiredRules;
      const rule = child['x-rule'] ?? resolve(plane, child)['x-rule'];
      const about = child['x-rule-about'] ?? 'type';
      if (rule)
        found.push({ ...base, path: [...path, name], rule, required, schema: child, shapeRules: shape, requiredRules: requiredBy, about, mistypedRule });
      walk(child, [...path, name], shape, requiredBy, mistypedRule, inside);
    }
  };
  walk(root, [], [], [], undefined, new Set());
  return found;
}

const jsonSchema = (content: Record<string, { schema?: unknown }> | undefined) => content?.['application/json']?.schema as Schema | undefined;

/** Every field site of the contract: request and 2xx response bodies of each operation, and the webhook. */
function fieldSites(): FieldSite[] {
  const sites: FieldSite[] = [];
  for (const operation of contract().operations) {
    const request = jsonSchema(operation.document.requestBody?.content);
    if (request) sites.push(...sitesIn(operation.plane, request, { plane: operation.plane, operationId: operation.operationId, direction: 'request' }));
    for (const [status, response] of Object.entries(operation.document.responses ?? {})) {
      const body = /^\d+$/.test(status) ? jsonSchema(response.content) : undefined;
      const base = { plane: operation.plane, operationId: operation.operationId, direction: 'response', status: Number(status) } as const;
      if (body) sites.push(...sitesIn(operation.plane, body, base));
    }
  }
  for (const [name, item] of Object.entries(contract().documents['agent-server'].webhooks ?? {})) {
    const body = jsonSchema(item.post?.requestBody?.content);
    if (body) sites.push(...sitesIn('agent-server', body, { plane: 'agent-server', operationId: name, direction: 'delivery' }));
  }
  // A site counts where its rule is about that operation (a Feedback's rules are about the upload, not the feedback
  // endpoints). One site per rule, operation and direction: the last found, the deepest use (a Row's feedback rather
  // than the experiment's summary scores, which the suites leave bare).
  const about = (site: FieldSite) => site.direction === 'delivery' || (contract().rule(site.rule)?.operations ?? [site.operationId]).includes(site.operationId);
  return [...new Map(sites.filter(about).map((s) => [`${s.rule}:${s.operationId}:${s.direction}:${s.status ?? ''}:${s.path.at(-1)}`, s])).values()];
}

/** Applies `change` to the field at `path` wherever it is in `value` (every item of an array on '*'). */
function atPath(value: unknown, path: string[], change: (parent: Record<string, unknown>, key: string) => void): void {
  if (value === null || typeof value !== 'object') return;
  const [head, ...rest] = path;
  if (head === '*') {
    if (Array.isArray(value)) for (const item of value) atPath(item, rest, change);
    return;
  }
  if (Array.isArray(value)) return;
  const record = value as Record<string, unknown>;
  if (rest.length === 0) {
    if (head in record) change(record, head);
    return;
  }
  atPath(record[head], rest, change);
}

/** Whether a field at `path` breaks its documented schema somewhere in `value`. */
function mistypedAt(site: FieldSite, value: unknown): boolean {
  let mistyped = false;
  const key = `generated:${site.plane}:${site.operationId}:${site.path.join('.')}`;
  atPath(value, site.path, (parent, field) => {
    if (contract().runInline(key, site.plane, site.schema, parent[field]).length > 0) mistyped = true;
  });
  return mistyped;
}

/** Whether the field is in the body somewhere. */
function present(site: FieldSite, value: unknown): boolean {
  let found = false;
  atPath(value, site.path, () => void (found = true));
  return found;
}

/** A value the field's documented schema refuses, of another JSON type than the one it had. */
function otherType(site: FieldSite, value: unknown): unknown {
  const type = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  const key = `generated:${site.plane}:${site.operationId}:${site.path.join('.')}`;
  const refused = [12345, 'not of its type', true, { not: 'its type' }, ['not its type'], null].find(
    (candidate) => type(candidate) !== type(value) && contract().runInline(key, site.plane, site.schema, candidate).length > 0,
  );
  return refused === undefined ? value : refused;
}

const label = (site: FieldSite) => `${site.operationId} ${site.path.join('.').replaceAll('.*', '[]')}`;
const unique = (rules: string[]) => [...new Set(rules)].sort();

function bodyChanged(body: unknown, site: FieldSite, change: (parent: Record<string, unknown>, key: string) => void): unknown {
  const copy = structuredClone(body);
  atPath(copy, site.path, change);
  return copy;
}

const isSite = (site: FieldSite, req: MutableRequest) => req.operation === site.operationId;

/** The mutations one field site gives. */
function mutationsOf(site: FieldSite): [string, Mutation][] {
  // The US region stands for the platform API.
  const endpoint: Endpoint = site.plane;
  const name = (kind: string) =>
    `${kind}:${site.plane}:${site.operationId}${site.status && site.status >= 300 ? `:${site.status}` : ''}:${site.path.join('.')}`;
  const drop = (parent: Record<string, unknown>, key: string) => void delete parent[key];
  const retype = (parent: Record<string, unknown>, key: string) => void (parent[key] = otherType(site, parent[key]));
  if (site.direction === 'request') {
    const out: [string, Mutation][] = [
      [
        name('refuses'),
        {
          endpoint,
          breaks: [site.rule],
          description: `${label(site)}: a valid value is refused (422)`,
          request: (req) =>
            isSite(site, req) && present(site, req.body) && !mistypedAt(site, req.body) ? jsonError(422, `${site.path.at(-1)} is not accepted`) : req,
        },
      ],
    ];
    if (site.about === 'type') {
      out.push([
        name('accepts-mistyped'),
        {
          endpoint,
          breaks: [site.mistypedRule ?? site.rule],
          description: `${label(site)}: a mistyped value is accepted (answered 200)`,
          request: (req) => (isSite(site, req) && mistypedAt(site, req.body) ? json(200, {}) : req),
        },
      ]);
    }
    if (!site.required && site.about !== 'accepted') {
      out.push([
        name('ignores'),
        {
          endpoint,
          breaks: [site.rule],
          description: `${label(site)}: the field is accepted and ignored`,
          request: (req) => (isSite(site, req) ? { ...req, body: bodyChanged(req.body, site, drop) } : req),
        },
      ]);
    }
    return out;
  }
  const answer =
    (change: typeof drop) =>
    (res: MutableResponse, req: MutableRequest): MutableResponse =>
      isSite(site, req) && res.status === site.status && res.body !== undefined ? { ...res, body: bodyChanged(res.body, site, change) } : res;
  const deliver =
    (change: typeof drop) =>
    (req: MutableRequest): MutableRequest => ({ ...req, body: bodyChanged(req.body, site, change) });
  const hook = (change: typeof drop): Partial<Mutation> => (site.direction === 'delivery' ? { delivery: deliver(change) } : { response: answer(change) });
  // Leaving out an optional field breaks nothing; a webhook's conditional fields have rules for when they are there.
  const dropped: [string, Mutation][] =
    site.required || site.direction === 'delivery'
      ? [
          [
            name('drops'),
            {
              endpoint,
              breaks: unique([site.rule, ...(site.required ? site.requiredRules : []), ...(site.required ? site.shapeRules : [])]),
              description: `${label(site)}: the field is left out of the ${site.direction === 'delivery' ? 'notification' : 'answer'}`,
              ...hook(drop),
            },
          ],
        ]
      : [];
  return [
    ...dropped,
    [
      name('mistypes'),
      {
        endpoint,
        breaks: unique([site.rule, ...site.shapeRules]),
        description: `${label(site)}: the field is answered as another JSON type`,
        ...hook(retype),
      },
    ],
  ];
}

/** A documented status (`x-rule` on a response) or query parameter (`x-rule` on the parameter) that a rule states. */
interface OperationSite {
  plane: Plane;
  operationId: string;
  rule: string;
  /** The documented status (a status site). */
  status?: number;
  /** The query parameter (a parameter site). */
  parameter?: string;
}

function operationSites(): OperationSite[] {
  const sites: OperationSite[] = [];
  for (const { plane, operationId, document } of contract().operations) {
    for (const [status, response] of Object.entries(document.responses ?? {})) {
      if (response['x-rule']) sites.push({ plane, operationId, rule: response['x-rule'], status: Number(status) });
    }
    for (const parameter of document.parameters ?? []) {
      if (parameter.in === 'query' && parameter['x-rule']) sites.push({ plane, operationId, rule: parameter['x-rule'], parameter: parameter.name });
    }
  }
  return sites;
}

/** The path without the query parameter `name`. */
function withoutParameter(path: string, name: string): string {
  const [base, query] = path.split('?', 2);
  if (query === undefined) return path;
  const kept = query.split('&').filter((pair) => pair.split('=')[0] !== encodeURIComponent(name));
  return kept.length > 0 ? `${base}?${kept.join('&')}` : base;
}

/** Another success status: what a target answers that does the work but not the documented status. */
const otherSuccess = (status: number) => (status === 200 ? 203 : 200);

/** Whether the request path carries the query parameter `name`. */
function hasParameter(path: string, name: string): boolean {
  const query = path.split('?', 2)[1];
  return query?.split('&').some((pair) => pair.split('=')[0] === encodeURIComponent(name)) ?? false;
}

function operationMutations(site: OperationSite): [string, Mutation][] {
  if (site.parameter !== undefined) {
    const parameter = site.parameter;
    return [
      [
        `refuses-query:${site.plane}:${site.operationId}:${parameter}`,
        {
          endpoint: site.plane,
          breaks: [site.rule],
          description: `${site.operationId}: a request with the query parameter ${parameter} is refused (422)`,
          request: (req) => (req.operation === site.operationId && hasParameter(req.path, parameter) ? jsonError(422, `${parameter} is not accepted`) : req),
        },
      ],
      [
        `ignores-query:${site.plane}:${site.operationId}:${parameter}`,
        {
          endpoint: site.plane,
          breaks: [site.rule],
          description: `${site.operationId}: the query parameter ${parameter} is accepted and ignored`,
          request: (req) => (req.operation === site.operationId ? { ...req, path: withoutParameter(req.path, parameter) } : req),
        },
      ],
    ];
  }
  const status = site.status!;
  return [
    [
      `status:${site.plane}:${site.operationId}:${status}`,
      {
        endpoint: site.plane,
        breaks: [site.rule],
        description: `${site.operationId}: answers ${otherSuccess(status)} where ${status} is documented`,
        response: (res, req) => (req.operation === site.operationId && res.status === status ? { ...res, status: otherSuccess(status) } : res),
      },
    ],
  ];
}

/**
 * The generated mutations, by name: `<kind>:<plane>:<operationId>:<field path>` for fields,
 * `status:<plane>:<operationId>:<status>`, `refuses-query:` and `ignores-query:<plane>:<operationId>:<parameter>` for operations.
 */
export const GENERATED_MUTATIONS: Record<string, Mutation> = Object.fromEntries([
  ...fieldSites().flatMap(mutationsOf),
  ...operationSites().flatMap(operationMutations),
]);
