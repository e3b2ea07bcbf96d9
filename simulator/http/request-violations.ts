// Request violations: what a request body does that the contract does not document, though the
// schemas let it through. The schemas are open (additionalProperties allowed) where the spec says
// "not shown", so `{"assistant_id": "agent", "inptu": {…}}` validates; so does a value outside a
// set the contract lists for an open field only as a client's (x-client-values). The simulator
// tells them in a header and its log, and refuses them in strict mode; the schemas' own refusals
// (types, enums, required fields) stay the validators' of specs/contract.ts.
import { contract, type Api, type Operation } from '../../specs/contract.ts';
import { closest } from '../../specs/suggest.ts';
import { pointerSegments, type ValidationIssue } from './errors.ts';

export interface RequestViolation {
  /** Where it is: the body (the default when absent) or the query string. */
  in?: 'query';
  /** JSON pointer into the body; in the query string, the parameter's name. */
  at: string;
  message: string;
  /**
   * As pydantic names them: an unknown field, or a value outside the listed set; or a request an interpretation of
   * the spec would refuse, which the simulator accepts (interpretations never refuse but under --strict).
   */
  type: 'extra_forbidden' | 'enum' | 'interpretation';
}

/** The values a client knows for an open string field, and whose they are (`x-client-values` in specs/openapi). */
interface ClientValues {
  source: string;
  values: string[];
}

interface SchemaNode {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: unknown;
  items?: SchemaNode;
  allOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  'x-client-values'?: ClientValues;
}

/** What the check knows of one place in a body, from the schema nodes that describe it. */
interface Shape {
  /** The declared fields, when a schema there declares some. */
  fields?: Map<string, Shape>;
  /**
   * Undeclared keys are violations: a schema declares fields and leaves the object open without
   * saying what else it takes. Not so when it says (a schema for the other values is a documented
   * map; additionalProperties false, which the validator refuses itself).
   */
  checkKeys: boolean;
  /** An alternative (anyOf, oneOf) takes any object: no key is a violation here. */
  anyKeys: boolean;
  items?: Shape;
  clientValues?: ClientValues;
}

/** The header that carries them (the admin document's RequestViolations), and its value: URI-encoded JSON, as the recording proxy encodes an answer's violations. */
export const REQUEST_VIOLATIONS_HEADER = contract().requestViolationsHeader;
export function encodeRequestViolations(violations: RequestViolation[]): string {
  return encodeURIComponent(JSON.stringify(violations));
}

/** Strict mode's refusal of them: each a validation issue under `body` (or `query`), as FastAPI's extra_forbidden names the field. */
export function strictIssues(violations: RequestViolation[]): ValidationIssue[] {
  return violations.map((v) => ({ loc: v.in === 'query' ? ['query', v.at] : ['body', ...pointerSegments(v.at)], msg: v.message, type: v.type }));
}

/** A query parameter as the contract documents it: `x-not-implemented` says why the simulator cannot honour it. */
interface QueryParameter {
  name: string;
  'x-not-implemented'?: string;
}

/**
 * What the query string asks beyond what the simulator can do, by the operation's documented
 * query parameters. A parameter the contract does not document is a violation (beyond the spec:
 * marked, refused in strict mode); one it documents but the simulator does not implement
 * (`x-not-implemented`) is refused whatever the mode, as a 422 issue naming it: never ignored,
 * since an answer that ignores a filter is silently wrong.
 */
export function queryViolations(documented: readonly QueryParameter[], query: URLSearchParams): { violations: RequestViolation[]; refused: ValidationIssue[] } {
  const violations: RequestViolation[] = [];
  const refused: ValidationIssue[] = [];
  for (const name of new Set(query.keys())) {
    const parameter = documented.find((p) => p.name === name);
    if (!parameter) violations.push({ in: 'query', at: name, type: 'extra_forbidden', message: unknownParameter(name, documented) });
    else if (parameter['x-not-implemented'] !== undefined)
      refused.push({
        loc: ['query', name],
        msg: `the simulator does not implement the query parameter '${name}' (${parameter['x-not-implemented']}): send the request without it`,
        type: 'not_implemented',
      });
  }
  return { violations, refused };
}

/** `unknown query parameter 'limt': did you mean 'limit'?`, or what the operation documents. */
function unknownParameter(name: string, documented: readonly QueryParameter[]): string {
  const names = documented.map((p) => p.name);
  const guess = closest(name, names);
  if (guess) return `unknown query parameter '${name}': did you mean '${guess}'?`;
  return `unknown query parameter '${name}': the contract documents ${names.length > 0 ? names.map((n) => `'${n}'`).join(', ') : 'none'} here`;
}

export type RequestViolationCheck = (body: unknown) => RequestViolation[];

const compiled = new WeakMap<Operation<Api>, RequestViolationCheck | null>();

/** The request violations check of an operation's JSON body, compiled once; none when its schema leaves nothing to check. */
export function requestViolationCheck(operation: Operation<Api>): RequestViolationCheck | undefined {
  let check = compiled.get(operation);
  if (check === undefined) {
    const schema = operation.document.requestBody?.content?.['application/json']?.schema as SchemaNode | undefined;
    const shape = schema && new ShapeCompiler(operation.plane).shape(schema);
    check = shape && checksSomething(shape, new Set()) ? (body) => violationsOf(shape, body) : null;
    compiled.set(operation, check);
  }
  return check ?? undefined;
}

/** Builds shapes from a document's schema nodes, following $ref, allOf, anyOf and oneOf. */
class ShapeCompiler {
  /** One shape per schema node: a schema that refers to itself gets the shape being built. */
  private readonly shapes = new Map<SchemaNode, Shape>();

  constructor(private readonly api: Api) {}

  shape(node: SchemaNode): Shape {
    const resolved = this.resolve(node);
    const known = this.shapes.get(resolved);
    if (known) return known;
    const shape: Shape = { checkKeys: false, anyKeys: false };
    this.shapes.set(resolved, shape);
    if (resolved.properties) {
      shape.fields = new Map(Object.entries(resolved.properties).map(([name, inner]) => [name, this.shape(inner)]));
      shape.checkKeys = resolved.additionalProperties === undefined || resolved.additionalProperties === true;
    }
    if (resolved.items) shape.items = this.shape(resolved.items);
    shape.clientValues = resolved['x-client-values'];
    for (const branch of resolved.allOf ?? []) absorb(shape, this.shape(branch));
    for (const branch of [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? [])]) {
      absorb(shape, this.shape(branch));
      if (isFreeForm(this.resolve(branch))) shape.anyKeys = true;
    }
    return shape;
  }

  private resolve(node: SchemaNode): SchemaNode {
    const prefix = '#/components/schemas/';
    if (!node.$ref?.startsWith(prefix)) return node;
    const target = contract().documents[this.api].components?.schemas?.[node.$ref.slice(prefix.length)];
    if (!target) throw new Error(`${this.api}: ${node.$ref} names no schema`);
    return this.resolve(target as SchemaNode);
  }
}

/** An object schema that declares no field and takes any: `input`, `metadata`, `config`, or a bare `{}`. */
function isFreeForm(node: SchemaNode): boolean {
  const types = node.type === undefined ? ['object'] : [node.type].flat();
  const composed = node.allOf ?? node.anyOf ?? node.oneOf;
  return types.includes('object') && !node.properties && !composed && node.additionalProperties !== false;
}

/** Adds a branch's shape to its parent's: the fields any of them declares are known (lenient, as the union of the branches). */
function absorb(into: Shape, branch: Shape): void {
  if (branch.fields) {
    into.fields ??= new Map();
    for (const [name, inner] of branch.fields) {
      const had = into.fields.get(name);
      into.fields.set(name, had && had !== inner ? merged(had, inner) : inner);
    }
  }
  into.checkKeys ||= branch.checkKeys;
  into.anyKeys ||= branch.anyKeys;
  if (branch.items) into.items = into.items && into.items !== branch.items ? merged(into.items, branch.items) : branch.items;
  into.clientValues ??= branch.clientValues;
}

function merged(a: Shape, b: Shape): Shape {
  const shape: Shape = { checkKeys: false, anyKeys: false };
  absorb(shape, a);
  absorb(shape, b);
  return shape;
}

/** Whether a shape has anything to check: declared fields that close an object, or client values, anywhere below. */
function checksSomething(shape: Shape, seen: Set<Shape>): boolean {
  if (seen.has(shape)) return false;
  seen.add(shape);
  if ((shape.checkKeys && !shape.anyKeys) || shape.clientValues) return true;
  if (shape.items && checksSomething(shape.items, seen)) return true;
  for (const inner of shape.fields?.values() ?? []) if (checksSomething(inner, seen)) return true;
  return false;
}

function violationsOf(shape: Shape, body: unknown): RequestViolation[] {
  const found: RequestViolation[] = [];
  walk(shape, body, '', found);
  return found;
}

function walk(shape: Shape, value: unknown, at: string, found: RequestViolation[]): void {
  if (typeof value === 'string') {
    const known = shape.clientValues;
    if (known && !known.values.includes(value)) {
      found.push({ at, type: 'enum', message: `'${value}' is not one of ${known.values.join(', ')} (${known.source})` });
    }
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    if (shape.items) for (let i = 0; i < value.length; i++) walk(shape.items, value[i], `${at}/${i}`, found);
    return;
  }
  if (!shape.fields) return;
  for (const key in value) {
    const inner = shape.fields.get(key);
    if (inner) walk(inner, (value as Record<string, unknown>)[key], `${at}/${escapePointer(key)}`, found);
    else if (shape.checkKeys && !shape.anyKeys)
      found.push({ at: `${at}/${escapePointer(key)}`, type: 'extra_forbidden', message: unknownField(key, shape.fields) });
  }
}

/** `unknown field 'inptu': did you mean 'input'?` */
function unknownField(key: string, fields: Map<string, Shape>): string {
  const guess = closest(key, [...fields.keys()]);
  return `unknown field '${key}'${guess ? `: did you mean '${guess}'?` : ''}`;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
