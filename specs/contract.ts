// The contract as data: loads the OpenAPI documents, the rules catalogue and the
// rate-limit table once, and compiles the validators that the simulator (requests),
// the recording proxy and the suites (responses) all share.
import { readFileSync } from 'node:fs';
import { parseSpecYaml } from './parsed-yaml.ts';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { RunStatus } from './types/agent-server.ts';
import type { operations as AdminOperations } from './types/simulator-admin.ts';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export const PLANES = ['control-plane', 'platform-api', 'agent-server'] as const;
export type Plane = (typeof PLANES)[number];

/**
 * The base URLs a target has: one per plane, and the platform API once per region (§1):
 * `platform-api` is the US region, `platform-api-eu` the EU one.
 */
export const ENDPOINTS = ['agent-server', 'control-plane', 'platform-api', 'platform-api-eu'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

/** An operation of the admin protocol (specs/openapi/simulator-admin.yaml), by operationId. */
export type AdminOperationId = keyof AdminOperations;
/** What an admin operation answers with 200, as the generated types say. */
export type AdminAnswer<Id extends AdminOperationId> = AdminOperations[Id]['responses'][200]['content']['application/json'];

/** Every OpenAPI document: the three planes, and the simulator's admin protocol (/__sim). */
export const APIS = [...PLANES, 'simulator-admin'] as const;
export type Api = (typeof APIS)[number];

export function planeOf(endpoint: Endpoint): Plane {
  return endpoint === 'platform-api-eu' ? 'platform-api' : endpoint;
}

export type RuleLevel = 'MUST' | 'SHOULD' | 'unspecified';
/** spec: stated by the spec; service: the real service's documented behaviour; interpretation: our reading. */
export type RuleSource = 'spec' | 'service' | 'interpretation';
export const RULE_SOURCES: RuleSource[] = ['spec', 'service', 'interpretation'];

export interface Rule {
  id: string;
  level: RuleLevel;
  plane: Plane;
  area: string;
  section: string;
  text: string;
  operations?: string[];
  source: RuleSource;
  /** The public source a service rule comes from (documentation page, OpenAPI document or open-source code). */
  reference?: string;
  /** Why no request to a running target can show the rule: a run is not faulted for leaving it unjudged. */
  unobservable?: string;
}

export interface RateLimitRow {
  id: string;
  rule: string;
  category: string;
  match: {
    methods?: string[];
    paths?: { type: 'exact' | 'contains' | 'suffix' | 'pattern'; value: string }[];
    requires?: 'api-key' | 'user-id' | 'none';
  };
  identity: 'api-key' | 'user-id+ip' | 'ip';
  limit: { us: number; eu: number };
  interval_seconds: number;
  /** Rows with the same bucket share one counter (one row of §8 split in two entries). */
  bucket?: string;
  note?: string;
}

export interface Violation {
  /** JSON pointer into the validated value ('' is the value itself). */
  at: string;
  message: string;
  /** A required property that is missing, under `at`. */
  missing?: string;
}

/** One path an operation is served at, compiled for matching. */
export interface ServedPath {
  /** Path template, e.g. /threads/{thread_id}. */
  path: string;
  /** The template's segments after the leading slash: a literal, or null for a parameter. */
  segments: (string | null)[];
  paramNames: string[];
  /** Number of literal segments: more specific templates are matched first. */
  specificity: number;
}

export interface Operation<A extends Api = Plane> {
  plane: A;
  operationId: string;
  method: string;
  /** Path template as written in the OpenAPI document, e.g. /threads/{thread_id}. */
  path: string;
  /** Every path it is served at: the documented one under each base path (`x-base-paths`). */
  served: ServedPath[];
  unspecified: boolean;
  /**
   * Not in the spec's endpoint tables (`x-spec: extra`): a path the spec does not show, which the
   * service serves and the suites use as evidence where the spec shows none. A target may declare
   * it does not serve it (target config `not_shown_operations`).
   */
  notShown: boolean;
  /**
   * The operation whose path is the one the spec's table writes, where this one is the form the
   * service and its clients send instead (`x-spec-form`): a target may serve that form alone.
   */
  specForm?: string;
  document: OpenApiOperation;
}

interface OperationMatch<A extends Api = Plane> {
  operation: Operation<A>;
  params: Record<string, string>;
}

/**
 * The keys by which specs/openapi ties a node to rules, each with one meaning:
 * - `x-rule`: the rule that states this node (a schema or a field, a parameter, a documented
 *   status, an operation the spec does not show): a target that breaks the node breaks it (the
 *   generated mutations, the harness's preconditions and the third hop read it).
 * - `x-implements`: the rules this node's own constraints (type, enum, required, format, bounds,
 *   pattern) implement whole: the simulator validates each request against its schema before the
 *   handler runs, so no hand-written check restates them (the third hop reads it).
 * - `x-rule-about`: on a request field, what its `x-rule` says (`type`, `effect` or `accepted`).
 * - `x-mistyped-rule`: on a request schema, the rule a field of the wrong type breaks when the
 *   target takes it, where the fields' own rules state only what they are.
 */
export const RULE_KEYS = ['x-rule', 'x-implements', 'x-rule-about', 'x-mistyped-rule'] as const;

/** What a request field's rule says: its type (and what it does), only what it does, or only that it is accepted. */
export type RuleAbout = 'type' | 'effect' | 'accepted';

/** The rule keys (RULE_KEYS) a JSON Schema node of specs/openapi may carry. */
export interface SchemaAnnotations {
  'x-rule'?: string;
  'x-implements'?: string[];
  'x-rule-about'?: RuleAbout;
  'x-mistyped-rule'?: string;
}

interface OpenApiDocument {
  openapi: string;
  /** The base paths every operation is served under (default ['']); see pathsServed. */
  'x-base-paths'?: string[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: {
    schemas?: Record<string, unknown>;
    parameters?: Record<string, { name: string; schema?: { maxLength?: number } }>;
    /** Response headers; `x-name` is the header's name (a component's key is not). */
    headers?: Record<string, { 'x-name'?: string }>;
  };
  webhooks?: Record<string, Record<string, OpenApiOperation>>;
}

interface MediaType {
  schema?: unknown;
}

export interface OpenApiOperation {
  operationId: string;
  /** `x-rule`: the rule that states what the parameter does (the self-tests ignore it on purpose). */
  parameters?: {
    name: string;
    in: string;
    required?: boolean;
    schema?: unknown;
    'x-rule'?: string;
    /** Why the simulator cannot honour this parameter: it refuses a request that gives it (422 naming it), never ignores it. */
    'x-not-implemented'?: string;
  }[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  /** `x-rule`: the rule that states this status (the self-tests answer another on purpose). */
  responses?: Record<string, { description?: string; content?: Record<string, MediaType>; 'x-rule'?: string }>;
  'x-unspecified'?: boolean;
  /** `extra`: the operation is not in the spec's endpoint tables (Operation.notShown). */
  'x-spec'?: 'extra';
  /**
   * On an operation the spec does not show: the rule that states the service serves it, which
   * explains a test skipped because the target does not (a failed precondition).
   */
  'x-rule'?: string;
  /** Overrides the document's `x-base-paths` for this operation. */
  'x-base-paths'?: string[];
  /** What a successful call creates on the target (the run profiles decide which may be made). */
  'x-creates'?: SideEffect;
  /**
   * The body field that names what a create makes, when the client may choose it: sent twice with
   * it, the create cannot make two (the second answers a conflict). harness/retry.ts reads it.
   */
  'x-keyed-by'?: string;
  /** A create (x-creates) that leaves the same state however often the same request is sent. */
  'x-idempotent'?: boolean;
  /** The operationId of the form the spec's table writes, where this operation is the service's form of it. */
  'x-spec-form'?: string;
  [key: string]: unknown;
}

/** What a request can create on a target; the operations say which they create (`x-creates`). */
export type SideEffect = 'deployment' | 'revision' | 'thread' | 'run' | 'cron' | 'assistant' | 'trace' | 'feedback' | 'dataset' | 'experiment' | 'oauth-flow';

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'options', 'head'];

function specFile(relative: string): string {
  return readFileSync(new URL(relative, import.meta.url), 'utf8');
}

function loadYaml<T>(relative: string): T {
  return parseSpecYaml(specFile(relative)) as T;
}

function documentId(plane: Api): string {
  return `urn:apc:${plane}`;
}

/** Rewrites local `#/components/schemas/X` refs so a schema compiles outside its document. */
function rewriteRefs(value: unknown, plane: Api): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, plane));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/components/schemas/')) {
      out[key] = `${documentId(plane)}#/$defs/${inner.slice('#/components/schemas/'.length)}`;
    } else {
      out[key] = rewriteRefs(inner, plane);
    }
  }
  return out;
}

function toViolations(errors: ErrorObject[] | null | undefined): Violation[] {
  return (errors ?? []).map((error) => ({
    at: error.instancePath,
    message: describeError(error),
    ...(error.keyword === 'required' ? { missing: String((error.params as { missingProperty?: unknown }).missingProperty) } : {}),
  }));
}

function describeError(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return `must have required property '${String(params.missingProperty)}'`;
  if (error.keyword === 'enum') return `must be one of ${JSON.stringify(params.allowedValues)}`;
  if (error.keyword === 'type') return `must be ${String(params.type).split(',').join(' or ')}`;
  if (error.keyword === 'additionalProperties') return `must not have property '${String(params.additionalProperty)}'`;
  return error.message ?? error.keyword;
}

/**
 * The paths an operation is served at. A document may serve its routes under several base
 * paths (`x-base-paths`, e.g. the platform API both bare and under /api/v1): the documented
 * path, with any base path it already starts with taken off, is served under each of them.
 */
function pathsServed(path: string, basePaths: string[] = ['']): string[] {
  const bare = basePaths.reduce((p, base) => (base && p.startsWith(`${base}/`) ? p.slice(base.length) : p), path);
  return basePaths.map((base) => `${base}${bare}`);
}

function templatePattern(path: string): ServedPath {
  const paramNames: string[] = [];
  const segments = splitPath(path).map((segment) => {
    const param = /^\{(.+)\}$/.exec(segment);
    if (!param) return segment;
    paramNames.push(param[1]);
    return null;
  });
  return { path, segments, paramNames, specificity: segments.filter((segment) => segment !== null && segment !== '').length };
}

/** The documented operations of one document, most specific path first. */
function operationsOf<A extends Api>(plane: A, document: OpenApiDocument): Operation<A>[] {
  const operations: Operation<A>[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const served = pathsServed(path, op['x-base-paths'] ?? document['x-base-paths']).map(templatePattern);
      operations.push({
        plane,
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        served,
        unspecified: op['x-unspecified'] === true,
        notShown: op['x-spec'] === 'extra',
        specForm: op['x-spec-form'],
        document: op,
      });
    }
  }
  return operations;
}

/** The operation's documented path with its parameters filled in (percent-encoded). */
export function pathOf(operation: Operation<Api>, params: Record<string, string>): string {
  return operation.path
    .split('/')
    .map((segment) => (segment.startsWith('{') && segment.endsWith('}') ? encodeURIComponent(params[segment.slice(1, -1)]) : segment))
    .join('/');
}

/** A path's segments after the leading slash; a trailing slash adds none (/threads/ is /threads). */
export function splitPath(path: string): string[] {
  const segments = path.split('/');
  segments.shift();
  if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop();
  return segments;
}

/** Matches a concrete path against one served path: its path parameters, or undefined. */
export function matchServedPath(served: ServedPath, path: string): Record<string, string> | undefined {
  return matchSegments(served, splitPath(path));
}

/** Matches split path segments (splitPath) segment by segment: a literal equals, a parameter takes any non-empty one. */
export function matchSegments(served: ServedPath, segments: string[]): Record<string, string> | undefined {
  const template = served.segments;
  if (template.length !== segments.length) return undefined;
  for (let i = 0; i < template.length; i++) {
    const literal = template[i];
    if (literal === null ? segments[i] === '' : literal !== segments[i]) return undefined;
  }
  const params: Record<string, string> = {};
  let n = 0;
  for (let i = 0; i < template.length; i++) if (template[i] === null) params[served.paramNames[n++]] = safeDecode(segments[i]);
  return params;
}

/** A percent-encoded text decoded; malformed encoding is kept as sent (validation then refuses it, and a proxy survives it). */
export function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** What enumOf and runStatuses read of a schema node. */
interface SchemaNode {
  enum?: unknown[];
  properties?: Record<string, SchemaNode>;
  'x-in-progress'?: string[];
  'x-final'?: string[];
}

/**
 * The agent server's run statuses, read from its RunStatus schema. `final` is what the spec names
 * final (§3: success and error); `ended`, every status but those of a run in progress
 * (`x-in-progress`: pending and running), is our interpretation of the reference, where timeout
 * and interrupted end a run too.
 */
interface RunStatuses {
  values: RunStatus[];
  inProgress: RunStatus[];
  ended: RunStatus[];
  final: RunStatus[];
}

class Contract {
  readonly documents: Record<Api, OpenApiDocument>;
  readonly operations: Operation[];
  /** The simulator's admin protocol (/__sim): not part of the API a target is judged on. */
  readonly adminOperations: Operation<'simulator-admin'>[];
  /** Every served path of the planes' operations, most specific first, for findOperation. */
  private readonly servedIndex: { operation: Operation; served: ServedPath }[];
  readonly deploymentConfigSchema: Record<string, unknown>;
  readonly targetConfigSchema: Record<string, unknown>;
  readonly expectationsSchema: Record<string, unknown>;
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly byRef = new Map<string, ValidateFunction>();
  private loadedRules?: Rule[];
  private rulesById?: Map<string, Rule>;
  private loadedRateLimits?: RateLimitRow[];
  private readRunStatuses?: RunStatuses;

  constructor() {
    this.documents = {
      'control-plane': loadYaml<OpenApiDocument>('./openapi/control-plane.yaml'),
      'platform-api': loadYaml<OpenApiDocument>('./openapi/platform-api.yaml'),
      'agent-server': loadYaml<OpenApiDocument>('./openapi/agent-server.yaml'),
      'simulator-admin': loadYaml<OpenApiDocument>('./openapi/simulator-admin.yaml'),
    };
    this.deploymentConfigSchema = loadYaml<Record<string, unknown>>('./schemas/deployment-config.schema.yaml');
    this.targetConfigSchema = loadYaml<Record<string, unknown>>('./schemas/target-config.schema.yaml');
    this.expectationsSchema = loadYaml<Record<string, unknown>>('./schemas/expectations.schema.yaml');

    // Not checked against the meta-schema here, which costs a compile of it in every process that loads the
    // contract: the OpenAPI documents and the schema files are checked in specs/contract.test.ts.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, validateSchema: false });
    addFormats(this.ajv);
    for (const plane of APIS) {
      const schemas = this.documents[plane].components?.schemas ?? {};
      this.ajv.addSchema({ $id: documentId(plane), $defs: rewriteRefs(schemas, plane) });
    }
    this.ajv.addSchema(this.deploymentConfigSchema);
    this.ajv.addSchema(this.targetConfigSchema);
    this.ajv.addSchema(this.expectationsSchema);

    this.operations = PLANES.flatMap((plane) => operationsOf(plane, this.documents[plane]));
    this.adminOperations = operationsOf('simulator-admin', this.documents['simulator-admin']);
    this.servedIndex = this.operations
      .flatMap((operation) => operation.served.map((served) => ({ operation, served })))
      .sort((a, b) => b.served.specificity - a.served.specificity);
  }

  /** The operations of one document. */
  operationsOf<A extends Api>(api: A): Operation<A>[] {
    return (api === 'simulator-admin' ? this.adminOperations : this.operations.filter((op) => op.plane === api)) as Operation<A>[];
  }

  /** The rules catalogue (specs/rules.yaml), in catalogue order. */
  get rules(): Rule[] {
    this.loadedRules ??= loadYaml<{ rules: Rule[] }>('./rules.yaml').rules;
    return this.loadedRules;
  }

  /** The rate-limit table of §8 (specs/rate-limits.yaml). */
  get rateLimits(): RateLimitRow[] {
    this.loadedRateLimits ??= loadYaml<{ rows: RateLimitRow[] }>('./rate-limits.yaml').rows;
    return this.loadedRateLimits;
  }

  /** The agent server's run statuses (its RunStatus schema): see RunStatuses. */
  get runStatuses(): RunStatuses {
    if (!this.readRunStatuses) {
      const node = this.schemaNode('agent-server', 'RunStatus');
      const subset = (name: 'x-in-progress' | 'x-final') => {
        const values = node[name];
        if (!values) throw new Error(`agent-server RunStatus has no ${name}`);
        return values as RunStatus[];
      };
      // The generated RunStatus type is this same enum (specs/types/agent-server.ts).
      const values = this.enumOf('agent-server', 'RunStatus') as RunStatus[];
      const inProgress = subset('x-in-progress');
      this.readRunStatuses = { values, inProgress, ended: values.filter((s) => !inProgress.includes(s)), final: subset('x-final') };
    }
    return this.readRunStatuses;
  }

  /** The path prefix of the simulator's admin protocol (`/__sim/`), the first segment its paths share. */
  get adminPathPrefix(): string {
    return `/${this.adminOperations[0].path.split('/')[1]}/`;
  }

  /**
   * The header that gives a request a simulated platform of its own (capability partitions), and
   * the longest name it takes: the Partition parameter of the admin document.
   */
  get partitionHeader(): { name: string; maxLength: number } {
    const parameter = this.documents['simulator-admin'].components?.parameters?.Partition;
    if (!parameter) throw new Error('No Partition parameter in the simulator-admin OpenAPI document');
    return { name: parameter.name.toLowerCase(), maxLength: parameter.schema?.maxLength ?? Number.POSITIVE_INFINITY };
  }

  /** The response header that carries a request's violations (simulator/http/request-violations.ts): the admin document's RequestViolations. */
  get requestViolationsHeader(): string {
    const name = this.documents['simulator-admin'].components?.headers?.RequestViolations?.['x-name'];
    if (!name) throw new Error('No RequestViolations header with an x-name in the simulator-admin OpenAPI document');
    return name.toLowerCase();
  }

  rule(id: string): Rule | undefined {
    this.rulesById ??= new Map(this.rules.map((rule) => [rule.id, rule]));
    return this.rulesById.get(id);
  }

  /** An operation of the admin protocol: the method and path its clients send it to. */
  adminOperation(operationId: AdminOperationId): Operation<'simulator-admin'> {
    const found = this.adminOperations.find((op) => op.operationId === operationId);
    if (!found) throw new Error(`No operation ${operationId} in the simulator-admin OpenAPI document`);
    return found;
  }

  operation(plane: Plane, operationId: string): Operation {
    const found = this.operations.find((op) => op.plane === plane && op.operationId === operationId);
    if (!found) throw new Error(`No operation ${operationId} in the ${plane} OpenAPI document`);
    return found;
  }

  /** Finds the documented operation a concrete request addresses, if any. */
  findOperation(plane: Plane, method: string, path: string): OperationMatch | undefined {
    const segments = splitPath(path.split('?')[0]);
    const upper = method.toUpperCase();
    for (const { operation, served } of this.servedIndex) {
      if (operation.plane !== plane || operation.method !== upper) continue;
      const params = matchSegments(served, segments);
      if (params) return { operation, params };
    }
    return undefined;
  }

  /**
   * The values a schema of the document allows (its `enum`), or those of one of its properties:
   * suites, simulator and mutations read a value list here, not restate it.
   */
  enumOf(api: Api, schemaName: string, property?: string): string[] {
    const node = this.schemaNode(api, schemaName);
    const target = property === undefined ? node : node.properties?.[property];
    const values = target?.enum;
    if (!values) throw new Error(`${api} ${schemaName}${property ? `.${property}` : ''} has no enum`);
    return [...values] as string[];
  }

  /** One named schema of the document (components/schemas), as written. */
  private schemaNode(api: Api, schemaName: string): SchemaNode {
    const node = this.documents[api].components?.schemas?.[schemaName];
    if (!node) throw new Error(`No schema ${schemaName} in the ${api} OpenAPI document`);
    return node as SchemaNode;
  }

  validateSchema(plane: Api, schemaName: string, value: unknown): Violation[] {
    return this.run(`${documentId(plane)}#/$defs/${schemaName}`, value);
  }

  validateDeploymentConfig(value: unknown): Violation[] {
    return this.run(String(this.deploymentConfigSchema.$id), value);
  }

  /** Validates an expectations file (run --expectations file.yaml). */
  validateExpectations(value: unknown): Violation[] {
    return this.run(String(this.expectationsSchema.$id), value);
  }

  /** Validates a target configuration file (run --target file.yaml). */
  validateTargetConfig(value: unknown): Violation[] {
    return this.run(String(this.targetConfigSchema.$id), value);
  }

  /** Validates a JSON request body against the operation's documented body schema. */
  validateRequestBody(operation: Operation<Api>, body: unknown): Violation[] {
    return this.requestBodyValidator(operation)?.(body) ?? [];
  }

  /** The operation's JSON body schema as a validating function, if it documents one. */
  requestBodyValidator(operation: Operation<Api>): ((body: unknown) => Violation[]) | undefined {
    const schema = operation.document.requestBody?.content?.['application/json']?.schema;
    return schema ? this.validator(`${operation.plane}:${operation.operationId}:request`, operation.plane, schema) : undefined;
  }

  /** One path or query parameter's documented schema as a validating function, if it has one. */
  parameterValidator(operation: Operation<Api>, location: 'path' | 'query', name: string): ((value: unknown) => Violation[]) | undefined {
    const parameter = operation.document.parameters?.find((p) => p.in === location && p.name === name);
    if (!parameter?.schema) return undefined;
    return this.validator(`${operation.plane}:${operation.operationId}:${location}:${name}`, operation.plane, parameter.schema);
  }

  /**
   * Validates a response against the documented response for its status. A status the
   * document does not list is itself a violation; a body whose media type has no schema
   * (streams, open bodies) is not checked here.
   */
  validateResponse(operation: Operation<Api>, status: number, contentType: string | undefined, body: unknown): Violation[] {
    const responses = operation.document.responses ?? {};
    const documented = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    if (!documented) {
      return [{ at: '', message: `status ${status} is not documented for ${operation.operationId} (documented: ${Object.keys(responses).join(', ')})` }];
    }
    const media = (contentType ?? '').split(';')[0].trim().toLowerCase();
    const content = documented.content;
    if (!content) return [];
    const schema = content[media]?.schema;
    if (!content[media]) {
      return [
        {
          at: '',
          message: `content-type '${media || '(none)'}' is not documented for ${operation.operationId} ${status} (documented: ${Object.keys(content).join(', ')})`,
        },
      ];
    }
    if (!schema || media !== 'application/json') return [];
    return this.runInline(`${operation.plane}:${operation.operationId}:response:${status}`, operation.plane, schema, body);
  }

  /** Validates a value against a schema of the plane's document, compiled once under `key`. */
  runInline(key: string, plane: Api, schema: unknown, value: unknown): Violation[] {
    return this.validator(key, plane, schema)(value);
  }

  /** A schema of the plane's document as a validating function, compiled once under `key`: for hot paths that keep it. */
  validator(key: string, plane: Api, schema: unknown): (value: unknown) => Violation[] {
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(schema, plane) as object);
      this.compiled.set(key, validate);
    }
    const compiled = validate;
    return (value) => (compiled(value) ? [] : toViolations(compiled.errors));
  }

  private run(ref: string, value: unknown): Violation[] {
    // Looked up once a ref: ajv resolves the ref anew on each getSchema, a tenth of a batch's ingestion.
    let validate = this.byRef.get(ref);
    if (!validate) {
      validate = this.ajv.getSchema(ref);
      if (!validate) throw new Error(`Unknown schema ${ref}`);
      this.byRef.set(ref, validate);
    }
    return validate(value) ? [] : toViolations(validate.errors);
  }
}

let shared: Contract | undefined;

/** The one contract instance of this process. */
export function contract(): Contract {
  shared ??= new Contract();
  return shared;
}
