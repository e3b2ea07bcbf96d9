// Conformant variants generated from the contract, for each plane:
// - every resource object it answers carries a key of its own beyond those the spec lists (no
//   schema of the planes is closed: the spec lists fields, never "only these");
// - every operation the spec does not show answers 404, as a target that serves only what the spec
//   shows does: once declared in its config (not_shown_operations), once undeclared, through a front;
//   and once as the simulator's own spec-only mode (simulate --spec-only), declared as its user would.
import { contract, PLANES, planeOf, type Endpoint, type Plane } from '../../../specs/contract.ts';
import type { MutableRequest, MutableResponse } from '../broken-target.ts';
import { isRecord, jsonError } from '../mutations/support.ts';
import { primaryIntegrations } from './control-plane.ts';
import type { Variant } from './variant.ts';

interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
}

/** The key a variant adds: no rule names it, and no client reads it. */
const EXTRA_KEY = 'apc_variant_extra';

function resolve(plane: Plane, schema: Schema): Schema {
  let current = schema;
  for (let depth = 0; current.$ref && depth < 10; depth++) {
    const name = current.$ref.split('/').pop() as string;
    current = (contract().documents[plane].components?.schemas?.[name] ?? {}) as Schema;
  }
  return current;
}

/**
 * `value` with the extra key in every object its schema describes by named fields (a resource: a
 * thread, its metadata, a run); objects of any shape (state values, inputs, outputs) are the
 * caller's data, and stay as they are.
 */
function withExtraKeys(plane: Plane, schema: Schema | undefined, value: unknown): unknown {
  if (!schema) return value;
  const node = resolve(plane, schema);
  if (Array.isArray(value)) return node.items ? value.map((item) => withExtraKeys(plane, node.items, item)) : value;
  if (!isRecord(value) || !node.properties || Object.keys(node.properties).length === 0) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key] = withExtraKeys(plane, node.properties[key], inner);
  return { ...out, [EXTRA_KEY]: 'a key the spec does not list' };
}

/** The schema of an operation's JSON answer with this status. */
function answerSchema(req: MutableRequest, status: number): Schema | undefined {
  if (!req.plane || !req.operation) return undefined;
  const responses = contract().operation(req.plane, req.operation).document.responses ?? {};
  return responses[String(status)]?.content?.['application/json']?.schema as Schema | undefined;
}

function extraKeys(endpoint: Endpoint): Variant {
  const plane = planeOf(endpoint);
  const payload = plane === 'agent-server' ? (contract().documents[plane].components?.schemas?.WebhookPayload as Schema | undefined) : undefined;
  return {
    endpoint,
    description: `every resource object the ${endpoint} answers carries a key the spec does not list`,
    allowedBy:
      '§2: each resource table lists its fields, and no section says an object holds only those (§2.7 metadata "may hold" graph_id; §2.9 "run fields beyond those in that table: not shown")',
    response: (res: MutableResponse, req: MutableRequest) => {
      const schema = answerSchema(req, res.status);
      return schema ? { ...res, body: withExtraKeys(plane, schema, res.body) } : res;
    },
    ...(payload ? { delivery: (req: MutableRequest) => ({ ...req, body: withExtraKeys(plane, payload, req.body) }) } : {}),
  };
}

/** The operations of a plane the spec does not show. */
const notShownOf = (plane: Plane) =>
  new Set(
    contract()
      .operationsOf(plane)
      .filter((o) => o.notShown)
      .map((o) => o.operationId),
  );

/**
 * The platform API's MUST rules whose only evidence is a read the spec does not show: a target that
 * declares it serves none of those reads has their tests skipped, declared. Every other MUST rule of
 * the plane a running target can show is judged on what the spec shows, and must pass on such a target.
 */
const PLATFORM_ONLY_THROUGH_NOT_SHOWN = [
  // What ingestion stored: §4.3 shows no answer, so only a read of the run shows it.
  'TRACE-CREATE',
  'TRACE-CREATE-GENERATES-ORDER',
  'TRACE-UPDATE',
  'TRACE-MULTIPART',
  'TRACE-MULTIPART-CALLER-ORDER',
  'TRACE-TRACE-ID',
  'TRACE-DOTTED-ORDER-SEGMENT',
  'TRACE-DOTTED-ORDER-CHAIN',
  // Statistics filled in after the answer: only a later read of the experiment shows them.
  'UPLOAD-STATS-FILLED-LATER',
  // A dataset made on the platform, not through the upload: the spec shows no way to make one.
  'UPLOAD-EXTERNAL-IDENTIFIER',
  'UPLOAD-EXTERNALLY-MANAGED-ONLY',
  // Rows of §8 that count only operations the spec does not show.
  'RATE-HIGH-THROUGHPUT-RUNS-BATCH-API-KEY',
  'RATE-HIGH-THROUGHPUT-FEEDBACK-API-KEY',
  'RATE-RUN-QUERY-API-KEY',
  'RATE-RUN-QUERY-USER-IP',
  'RATE-RUN-LOOKUP-API-KEY',
  // Rules whose probes go through rows on operations the spec does not show: DELETE /sessions
  // (RATE-IDENTITY-KEYS) and /runs/stats, the one row small enough to show both regions' values.
  'RATE-IDENTITY-KEYS',
  'RATE-REGION-VALUES',
];

/**
 * The MUST rules a target that serves only what the spec shows, and declares it, must pass. On the
 * agent server only RUN-JOIN is held to it so far: the tests of many others (multitask, webhooks,
 * crons, run status) read runs and crons through paths the spec does not show. The control plane is
 * left out: its deployments need an integration, which only a listing the spec does not show names
 * (control-plane-serves-only-shown-given-integrations gives it in the config).
 */
const PASSES_SERVING_ONLY_SHOWN: Partial<Record<Plane, () => string[]>> = {
  'agent-server': () => ['RUN-JOIN'],
  'platform-api': () =>
    contract()
      .rules.filter((r) => r.plane === 'platform-api' && r.level === 'MUST' && !r.unobservable && !PLATFORM_ONLY_THROUGH_NOT_SHOWN.includes(r.id))
      .map((r) => r.id),
};

function servesOnlyWhatTheSpecShows(endpoint: Endpoint, declared: boolean): Variant {
  const plane = planeOf(endpoint);
  const notShown = notShownOf(plane);
  return {
    endpoint,
    description: `the ${endpoint} serves none of the operations the spec does not show (404)${declared ? ', as its config declares' : ', undeclared'}`,
    allowedBy: `§4: the endpoint tables list what a target serves; ${[...notShown].join(', ')} are beyond them ("not shown")`,
    request: (req: MutableRequest) => (req.operation && notShown.has(req.operation) ? jsonError(404, 'Not Found') : req),
    ...(declared
      ? { declares: { not_shown_operations: { [plane]: [] } }, passes: PASSES_SERVING_ONLY_SHOWN[plane]?.() }
      : {
          leavesUnjudged:
            'a rule whose only evidence is a read the spec does not show cannot be judged, and the target does not say it serves none: the run counts it not judged',
        }),
  };
}

/**
 * The simulator itself in spec-only mode (startSimulator({ spec: 'only' })): every operation beyond
 * the spec answers 404 naming it, on every plane, deployments' agent servers included. Its config
 * declares what its user would: none of those operations served, and the integration to deploy
 * (the listing of integrations is one of them). It must pass what the front-made variant of the
 * same plane passes, declared.
 */
function specOnly(endpoint: Endpoint): Variant {
  const plane = planeOf(endpoint);
  return {
    endpoint,
    description: `the simulator's spec-only mode (simulate --spec-only): every operation beyond the spec answers 404 naming it; its config declares so (a run of the ${plane})`,
    allowedBy: `§4: the endpoint tables list what a target serves; ${PLANES.flatMap((p) => [...notShownOf(p)]).join(', ')} are beyond them ("not shown")`,
    simulator: { spec: 'only' },
    declares: { not_shown_operations: Object.fromEntries(PLANES.map((p) => [p, []])), integration_ids: primaryIntegrations() },
    passes: PASSES_SERVING_ONLY_SHOWN[plane]?.(),
  };
}

/** The endpoint of each plane the variants break (the platform API's US region stands for both). */
const ENDPOINT_OF: Record<Plane, Endpoint> = { 'agent-server': 'agent-server', 'control-plane': 'control-plane', 'platform-api': 'platform-api' };

export const GENERATED_VARIANTS: Record<string, Variant> = Object.fromEntries(
  PLANES.flatMap((plane) => [
    [`${plane}-extra-keys`, extraKeys(ENDPOINT_OF[plane])],
    [`${plane}-serves-only-shown-declared`, servesOnlyWhatTheSpecShows(ENDPOINT_OF[plane], true)],
    [`${plane}-serves-only-shown-undeclared`, servesOnlyWhatTheSpecShows(ENDPOINT_OF[plane], false)],
    [`${plane}-spec-only`, specOnly(ENDPOINT_OF[plane])],
  ]),
);
