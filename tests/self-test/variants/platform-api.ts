// Conformant variants of the platform API: targets that differ from the simulator only where §2.4-§2.6
// and §4.2-§4.4 leave a choice open.
import type { MutableRequest, MutableResponse } from '../broken-target.ts';
import { calls, isRecord, json, object } from '../mutations/support.ts';
import { AUTHENTICATE_FIELDS, authenticateRequires } from './access.ts';
import type { Variant } from './variant.ts';

/** An upload's answer whose counters are not filled in yet: they are, in every later read. */
const countersLater: Variant = {
  endpoint: 'platform-api',
  description:
    "an upload's answer gives the dataset's session_count as null and example_count as 0, and the experiment's run_count as null: they fill in once the runs are persisted",
  allowedBy:
    '§2.6: the answer has these fields, with no value given; "Right after upload, latency and feedback statistics are null. They are filled in after a few seconds, when the runs are persisted"',
  response: (res: MutableResponse, req: MutableRequest) => {
    if (!calls(req, 'uploadExperiment') || res.status !== 200) return res;
    const { dataset, experiment } = object(res.body);
    return {
      ...res,
      body: {
        ...object(res.body),
        dataset: { ...object(dataset), session_count: null, example_count: 0 },
        experiment: { ...object(experiment), run_count: null },
      },
    };
  },
};

/** PATCH /runs (or under /api/v1) with the run id in the body: the update sent on to the path form the simulator serves. */
function updateInBody(req: MutableRequest): MutableRequest | undefined {
  const base = /^(\/api\/v1)?\/runs\/?(\?|$)/.exec(req.path);
  if (req.method !== 'PATCH' || !base || !isRecord(req.body) || typeof req.body.id !== 'string') return undefined;
  const { id, ...update } = req.body;
  return { ...req, path: `${base[1] ?? ''}/runs/${id}`, body: update };
}

/** A target that takes §4.3's PATCH /runs with the run id in the body, beside the service's PATCH /runs/{run_id} or instead of it. */
function updatesInBody(only: boolean): Variant {
  return {
    endpoint: 'platform-api',
    description: only
      ? 'PATCH /runs takes the run id in the body, and PATCH /runs/{run_id} is not served (404)'
      : 'PATCH /runs takes the run id in the body, beside PATCH /runs/{run_id}',
    allowedBy: '§4.3: the endpoint table writes "PATCH | /runs | Updates a run"; "Bodies of POST and PATCH runs ... : not shown"',
    // §8's rows count PATCH /runs: the rate-limit suites must find the form this target serves.
    rateLimits: only,
    request: (req: MutableRequest) => {
      if (only && calls(req, 'updateRun')) return json(404, { detail: 'Not Found' });
      return updateInBody(req) ?? req;
    },
  };
}

/** Ingestion that takes a run as the simulator does and answers `answer` instead: §4.3 shows no response. */
function ingestionAnswers(description: string, answer: MutableResponse): Variant {
  return {
    endpoint: 'platform-api',
    description,
    allowedBy: '§4.3: "Bodies of POST and PATCH runs, the multipart part layout and the responses: not shown"',
    response: (res: MutableResponse, req: MutableRequest) =>
      calls(req, 'createRun', 'updateRun', 'ingestRunsBatch') && res.status >= 200 && res.status < 300 ? answer : res,
  };
}

/** Upload-rule and field violations refused with 400 and another JSON body; credentials, unknown paths and limits answer as before. */
const uploadViolations400: Variant = {
  endpoint: 'platform-api',
  description:
    'an upload that breaks a rule of §4.4 or a field of §2.6 is refused with 400 and {"error": ..., "violations": [...]}, not 422 or 409 with {"detail": ...}',
  allowedBy: '§7: "Error status and body for violations of the experiment upload rules: not shown"',
  response: (res: MutableResponse, req: MutableRequest) =>
    calls(req, 'uploadExperiment') && res.status >= 400 && res.status < 500 && ![401, 403, 404, 429].includes(res.status)
      ? json(400, { error: 'The upload was rejected', violations: [object(res.body).detail ?? null] })
      : res,
};

/** A JSON value with every string that is a key of `names` replaced by its value. */
function renamed(value: unknown, names: Map<string, string>): unknown {
  if (typeof value === 'string') return names.get(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => renamed(item, names));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renamed(v, names)]));
  return value;
}

const SHOWN = 'shown-names';
const GIVEN = 'given-names';
const namesIn = (memory: Map<string, unknown>, key: string) => (memory.get(key) ?? memory.set(key, new Map()).get(key)) as Map<string, string>;

/** A dataset named by the target (rule 2) shows its name in another form, in every answer, and takes it back in every request. */
const generatedNames: Variant = {
  endpoint: 'platform-api',
  description: 'a generated dataset name reads "External dataset <its id>", not dataset-<8 hex digits>, in every answer and request',
  allowedBy: '§4.4 rule 2: "If only the id is given and the dataset does not exist, a name is generated": its form is not given',
  request: (req: MutableRequest, memory) => {
    const given = namesIn(memory, GIVEN);
    let path = req.path;
    for (const [shown, name] of given) path = path.replaceAll(encodeURIComponent(shown), encodeURIComponent(name));
    return { ...req, path, body: renamed(req.body, given) };
  },
  response: (res: MutableResponse, req: MutableRequest, memory) => {
    const dataset = object(object(res.body).dataset);
    if (calls(req, 'uploadExperiment') && res.status === 200 && !('dataset_name' in object(req.body)) && typeof dataset.name === 'string') {
      const shown = `External dataset ${String(dataset.id)}`;
      namesIn(memory, SHOWN).set(dataset.name, shown);
      namesIn(memory, GIVEN).set(shown, dataset.name);
    }
    return { ...res, body: renamed(res.body, namesIn(memory, SHOWN)) };
  },
};

/** A trace run read back with what the service adds: its depth in its metadata, counters and flags (LangSmith's RunSchema). */
function withServiceFields(run: unknown): unknown {
  if (!isRecord(run)) return run;
  const extra = object(run.extra);
  const depth = typeof run.dotted_order === 'string' ? run.dotted_order.split('.').length - 1 : 0;
  return {
    ...run,
    extra: { ...extra, metadata: { ...object(extra.metadata), ls_run_depth: depth }, runtime: { sdk: 'apc-variant' } },
    in_dataset: false,
    total_tokens: 0,
    feedback_stats: null,
    app_path: `/o/apc/projects/p/r/${String(run.id)}`,
  };
}

const runsWithServiceFields: Variant = {
  endpoint: 'platform-api',
  description:
    'a trace run reads back (GET /runs/{id}, POST /runs/query) with fields the service adds: extra.metadata.ls_run_depth, extra.runtime, in_dataset, total_tokens, feedback_stats, app_path',
  allowedBy: '§2.5: "Other fields of a trace run: not shown"',
  response: (res: MutableResponse, req: MutableRequest) => {
    if (res.status !== 200) return res;
    if (calls(req, 'readRun')) return { ...res, body: withServiceFields(res.body) };
    const runs = object(res.body).runs;
    return calls(req, 'queryRuns') && Array.isArray(runs) ? { ...res, body: { ...object(res.body), runs: runs.map(withServiceFields) } } : res;
  },
};

export const PLATFORM_API_VARIANTS: Record<string, Variant> = {
  'platform-api-ingestion-answers-200-queued': ingestionAnswers(
    'POST /runs, PATCH /runs/{id} and POST /runs/batch answer 200 with {"status": "queued"}, not 202 with {"message": ...}',
    json(200, { status: 'queued' }),
  ),
  'platform-api-ingestion-answers-202-without-body': ingestionAnswers('POST /runs, PATCH /runs/{id} and POST /runs/batch answer 202 with no body', {
    status: 202,
    headers: {},
    body: undefined,
  }),
  'platform-api-upload-violations-400': uploadViolations400,
  'platform-api-generated-dataset-names': generatedNames,
  'platform-api-runs-read-with-service-fields': runsWithServiceFields,
  'platform-api-patch-runs-id-in-body-beside-path': updatesInBody(false),
  'platform-api-patch-runs-id-in-body-only': updatesInBody(true),
  'platform-api-counters-fill-in-later': countersLater,
  'platform-api-authenticate-requires-every-field': authenticateRequires('platform-api', AUTHENTICATE_FIELDS),
  'platform-api-authenticate-requires-agent-id': authenticateRequires('platform-api', ['provider', 'scopes', 'agent_id']),
};
