// Experiment upload broken (§2.6, §4.4).
import type { MutableRequest, MutableResponse, Mutation } from '../broken-target.ts';
import { calls, object, UUID, type Json } from './support.ts';

/** Applies `change` to every string in a JSON value. */
function strings(value: unknown, change: (text: string) => string): unknown {
  if (typeof value === 'string') return change(value);
  if (Array.isArray(value)) return value.map((item) => strings(item, change));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strings(v, change)]));
  return value;
}

/** An upload's answer with its dataset and experiment changed. */
type Answer = { dataset: Json; experiment: Json };

function uploaded(res: MutableResponse, req: MutableRequest, change: (answer: Answer) => Answer): MutableResponse {
  if (!calls(req, 'uploadExperiment') || res.status !== 200) return res;
  const body = object(res.body);
  return { ...res, body: { ...body, ...change({ dataset: object(body.dataset), experiment: object(body.experiment) }) } };
}

/** A dataset created on the platform (not through the upload), remembered by name and by id. */
function notePlatformDataset(res: MutableResponse, req: MutableRequest, memory: Map<string, unknown>): void {
  const dataset = object(res.body);
  if (!calls(req, 'createDataset') || res.status >= 300) return;
  memory.set(`name:${String(dataset.name)}`, true);
  memory.set(`id:${String(dataset.id).toLowerCase()}`, true);
}

/** Marks an upload the front sent beside the platform dataset it named: the dataset as named. */
const NAMED = 'x-apc-named-dataset';

/** Sends an upload naming a platform dataset to a new external dataset beside it. */
function beside(req: MutableRequest, body: Json, named: Json): MutableRequest {
  return { ...req, headers: { ...req.headers, [NAMED]: JSON.stringify(named) }, body: { ...body, dataset_name: `${String(named.name)} (external)` } };
}

/** Answers an upload sent beside a platform dataset as if made to the dataset the caller named. */
function asNamed(res: MutableResponse, req: MutableRequest, memory: Map<string, unknown>): MutableResponse {
  notePlatformDataset(res, req, memory);
  const named = req.headers[NAMED];
  return named ? uploaded(res, req, ({ dataset, experiment }) => ({ dataset: { ...dataset, ...object(JSON.parse(named)) }, experiment })) : res;
}

/** A generated id shown in another form than a UUID (and read back in it). */
const shown = (id: string) => `ds_${id.replaceAll('-', '')}`;
const UUIDS = new RegExp(UUID.source.slice(1, -1), 'gi');
const SHOWN = /ds_([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})/g;

export const UPLOAD_MUTATIONS: Record<string, Mutation> = {
  'upload-without-dataset-accepted': {
    endpoint: 'platform-api',
    // Rule 1's refusal is also an example of a refusal in the documented 4xx shape.
    breaks: ['UPLOAD-DATASET-ID-OR-NAME', 'UPLOAD-VIOLATION-4XX'],
    description: 'an upload with neither dataset_id nor dataset_name is accepted into a dataset named after the experiment',
    request: (req) => {
      const body = object(req.body);
      const neither = !('dataset_id' in body) && !('dataset_name' in body) && typeof body.experiment_name === 'string';
      return calls(req, 'uploadExperiment') && neither ? { ...req, body: { ...body, dataset_name: `${String(body.experiment_name)}-dataset` } } : req;
    },
  },
  'upload-by-id-name-empty': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-GENERATE-NAME'],
    description: 'a dataset created from a dataset_id alone gets an empty name instead of a generated one',
    response: (res, req) => {
      const body = object(req.body);
      if ('dataset_name' in body || !('dataset_id' in body)) return res;
      return uploaded(res, req, ({ dataset, experiment }) => ({ dataset: dataset.session_count === 1 ? { ...dataset, name: '' } : dataset, experiment }));
    },
  },
  'upload-generated-id-not-uuid': {
    endpoint: 'platform-api',
    // Every upload's answer carries it: tried on the rule's tests (against every test, it fails these only).
    // The answer's dataset is then no Dataset of §2.6 (its id a UUID): the rules checking it whole fail too.
    breaks: ['UPLOAD-GENERATE-ID', 'UPLOAD-RESPONSE', 'UPLOAD-RESPONSE-DATASET-FIELDS'],
    description: 'a dataset created from a dataset_name alone is given an id that is no UUID (ds_ and 32 hex digits), shown and read back in that form',
    request: (req) => ({ ...req, path: req.path.replace(SHOWN, '$1-$2-$3-$4-$5'), body: strings(req.body, (s) => s.replace(SHOWN, '$1-$2-$3-$4-$5')) }),
    response: (res, req, memory) => {
      const body = object(req.body);
      const dataset = object(object(res.body).dataset);
      const byName = !('dataset_id' in body) && 'dataset_name' in body;
      if (calls(req, 'uploadExperiment') && res.status === 200 && byName && dataset.session_count === 1) memory.set(`generated:${String(dataset.id)}`, true);
      const show = (id: string) => (memory.has(`generated:${id.toLowerCase()}`) ? shown(id.toLowerCase()) : id);
      return { ...res, body: strings(res.body, (s) => s.replace(UUIDS, show)) };
    },
  },
  'upload-by-id-starts-new-dataset': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-SAME-DATASET'],
    description: 'an upload naming an existing dataset by dataset_id alone starts a new dataset instead of adding to it',
    request: (req, memory) => {
      const body = object(req.body);
      const id = typeof body.dataset_id === 'string' ? body.dataset_id.toLowerCase() : undefined;
      if (!calls(req, 'uploadExperiment') || !id || !memory.has(`uploaded:${id}`) || 'dataset_name' in body) return req;
      const { dataset_id: _taken, ...rest } = body;
      return { ...req, body: { ...rest, dataset_name: `${String(body.experiment_name)}-dataset` } };
    },
    response: (res, req, memory) => {
      const id = object(object(res.body).dataset).id;
      if (calls(req, 'uploadExperiment') && res.status === 200 && typeof id === 'string') memory.set(`uploaded:${id.toLowerCase()}`, true);
      return res;
    },
  },
  'upload-name-of-platform-dataset': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-EXTERNAL-IDENTIFIER'],
    description: 'a dataset_name alone naming a platform dataset is taken as a new external dataset of that name, not refused',
    request: (req, memory) => {
      const body = object(req.body);
      const named = calls(req, 'uploadExperiment') && !('dataset_id' in body) && memory.has(`name:${String(body.dataset_name)}`);
      return named ? beside(req, body, { name: body.dataset_name }) : req;
    },
    response: asNamed,
  },
  'upload-id-and-name-of-platform-dataset': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-EXTERNALLY-MANAGED-ONLY'],
    description: 'an upload naming a platform dataset by both dataset_id and dataset_name goes to a new external dataset beside it, not refused',
    request: (req, memory) => {
      const { dataset_id: id, ...body } = object(req.body);
      const platformDataset = typeof id === 'string' && memory.has(`id:${id.toLowerCase()}`) && memory.has(`name:${String(body.dataset_name)}`);
      const named = calls(req, 'uploadExperiment') && platformDataset;
      return named ? beside(req, body, { id, name: body.dataset_name }) : req;
    },
    response: asNamed,
  },
  'upload-dataset-no-data-type': {
    endpoint: 'platform-api',
    // Every upload's answer carries it: tried on the rule's tests (against every test, it fails these only).
    // The answer is then no ExperimentUploadResponse either.
    breaks: ['UPLOAD-RESPONSE', 'UPLOAD-RESPONSE-DATASET-FIELDS'],
    description: "the upload's answer leaves data_type out of the dataset",
    response: (res, req) => uploaded(res, req, ({ dataset: { data_type: _dropped, ...dataset }, experiment }) => ({ dataset, experiment })),
  },
  'upload-experiment-no-run-facets': {
    endpoint: 'platform-api',
    // Every upload's answer carries it: tried on the rule's tests (against every test, it fails these only).
    // The answer is then no ExperimentUploadResponse either.
    breaks: ['UPLOAD-RESPONSE', 'UPLOAD-RESPONSE-EXPERIMENT-FIELDS'],
    description: "the upload's answer leaves run_facets out of the experiment",
    response: (res, req) => uploaded(res, req, ({ dataset, experiment: { run_facets: _dropped, ...experiment } }) => ({ dataset, experiment })),
  },
  'platform-dataset-answered-external': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-PLATFORM-DATASET'],
    description: 'POST /api/v1/datasets answers the dataset it made on the platform as externally managed',
    response: (res, req) => (calls(req, 'createDataset') && res.status < 300 ? { ...res, body: { ...object(res.body), externally_managed: true } } : res),
  },
  'read-dataset-without-name': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-READ-DATASETS'],
    description: 'GET /api/v1/datasets/{id} answers the dataset without its name',
    response: (res, req) => {
      const { name: _dropped, ...dataset } = object(res.body);
      return calls(req, 'readDataset') && res.status === 200 ? { ...res, body: dataset } : res;
    },
  },
  'examples-listed-first-only': {
    endpoint: 'platform-api',
    // UPLOAD-ROW-ID's test sees each row's example through the same list.
    breaks: ['UPLOAD-READ-EXAMPLES', 'UPLOAD-ROW-ID'],
    description: "GET /api/v1/examples answers a dataset's first example only",
    response: (res, req) => (calls(req, 'listExamples') && res.status === 200 && Array.isArray(res.body) ? { ...res, body: res.body.slice(0, 1) } : res),
  },
  'uploaded-experiments-not-listed': {
    endpoint: 'platform-api',
    breaks: ['UPLOAD-READ-EXPERIMENTS'],
    description: 'GET /api/v1/sessions?name= lists tracing projects only, never an uploaded experiment',
    response: (res, req) =>
      calls(req, 'listSessions') && res.status === 200 && Array.isArray(res.body)
        ? { ...res, body: res.body.filter((session) => object(session).reference_dataset_id == null) }
        : res,
  },
  'upload-latency-zero': {
    endpoint: 'platform-api',
    // Every upload's answer carries it: tried on the rule's tests (against every test, it fails these only).
    breaks: ['UPLOAD-STATS-INITIALLY-NULL'],
    description: "the upload's answer gives the experiment's latencies as 0 before any run is persisted, not null",
    response: (res, req) => uploaded(res, req, ({ dataset, experiment }) => ({ dataset, experiment: { ...experiment, latency_p50: 0, latency_p99: 0 } })),
  },
};
