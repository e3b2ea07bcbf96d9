// The platform API's route table (spec §4.2-§4.4): one handler per operation of
// specs/openapi/platform-api.yaml, at its paths (ingestion unversioned, the upload under /api/v1,
// authentication under /v2), whose `x-base-paths` serves every route but /v2/auth/authenticate
// also under /api/v1. All but GET /info need X-Api-Key, of an account of this region (spec §1:
// the other region stores none of its data).
import { withAuth, type Caller } from '../auth/with-auth.ts';
import type { WorkspaceDirectory } from '../auth/workspaces.ts';
import { notFound, unprocessable } from '../http/errors.ts';
import type { operations, RunQuery } from '../../specs/types/platform-api.ts';
import { compileTable, type Reply, type Request, type Route } from '../http/router.ts';
import { parseMultipart } from './multipart.ts';
import type { PlatformApi } from './platform-api.ts';
import type { IngestOperation } from './trace-runs.ts';

type Json = Record<string, unknown>;

/** The ingestion endpoints answer 202 with a small JSON object (TRACE-ACCEPTED-202; the simulator's bodies, TRACE-BODIES). */
const accepted = (message: string): Reply => ({ status: 202, body: { message } });

export function platformApiRoutes(platform: PlatformApi, directory: WorkspaceDirectory): Route[] {
  const { traceRuns, experiments, oauth } = platform;
  const authed = <Body>(handler: (req: Request<Body>, caller: Caller) => Reply | Promise<Reply>) => withAuth(directory, handler, ['api-key'], platform.region);
  const ws = (caller: Caller) => caller.workspace.id;

  return compileTable<operations>('platform-api', {
    // Credentials required (the simulator's choice, AUTH-AUTHN-CREDENTIALS).
    authenticate: authed((req, caller) => ({ body: oauth.authenticate(ws(caller), req.body, `http://${req.headers.host ?? '127.0.0.1'}`) })),
    getInfo: () => ({ body: platform.info() }), // no credentials (TRACE-INFO)
    // TRACE-CREATE, TRACE-UPDATE, TRACE-MULTIPART: POST /runs, PATCH /runs/{run_id}, POST /runs/multipart.
    createRun: authed((req, caller) => {
      const violations = traceRuns.ingest(ws(caller), [{ kind: 'post', run: req.body as Json, at: ['body'] }], 'service');
      return { ...accepted('Run created'), violations };
    }),
    updateRun: authed((req, caller) => {
      const violations = traceRuns.ingest(ws(caller), [{ kind: 'patch', id: req.params.run_id.toLowerCase(), run: req.body as Json, at: ['body'] }], 'service');
      return { ...accepted('Run updated'), violations };
    }),
    // The spec's own form of the update, the run named in the body (TRACE-UPDATE).
    updateRunInBody: authed((req, caller) => {
      const run = req.body as Json;
      const violations = traceRuns.ingest(ws(caller), [{ kind: 'patch', id: String(run.id).toLowerCase(), run, at: ['body'] }], 'service');
      return { ...accepted('Run updated'), violations };
    }),
    // TRACE-RUNS-V2: the current client's client.runs.retrieve and client.runs.query.
    readRunV2: authed((req, caller) => ({
      body: traceRuns.readV2(ws(caller), req.params.run_id, req.query.get('project_id')!, req.query.getAll('selects')),
    })),
    queryRunsV2: authed((req, caller) => ({ body: traceRuns.queryV2(ws(caller), req.body as Json) })),
    readRun: authed((req, caller) => ({ body: traceRuns.read(ws(caller), req.params.run_id) })),
    ingestRunsMultipart: authed(async (req, caller) => {
      const violations = traceRuns.ingest(ws(caller), await parseMultipart(req.raw!, req.headers), 'caller');
      return { ...accepted('Accepted'), violations };
    }),
    // The endpoints §4.3 names only in the rate-limit table, served as the service does (TRACE-OTHER-ENDPOINTS).
    ingestRunsBatch: authed((req, caller) => {
      const violations = traceRuns.ingest(ws(caller), batchOperations(req.body as { post?: Json[]; patch?: Json[] }), 'caller');
      return { ...accepted('Runs batch ingested'), violations };
    }),
    queryRuns: authed((req, caller) => ({ body: traceRuns.query(ws(caller), req.body) })),
    // TRACE-STATS: the statistics of a run query, POST as the client sends it, GET with the query in the query string.
    runStats: authed((req, caller) => ({ body: traceRuns.stats(ws(caller), req.body) })),
    readRunStats: authed((req, caller) => ({ body: traceRuns.stats(ws(caller), statsQuery(req)) })),
    createFeedback: authed((req, caller) => ({ body: traceRuns.createFeedback(ws(caller), req.body as Json) })),
    // TRACE-READ-FEEDBACK: feedback listed by run or session, and read by id.
    listFeedback: authed((req, caller) => ({ body: traceRuns.listFeedback(ws(caller), { run: list(req, 'run'), experiment: list(req, 'session') }) })),
    readFeedback: authed((req, caller) => ({ body: traceRuns.readFeedback(ws(caller), req.params.feedback_id) })),
    uploadExperiment: authed((req, caller) => ({ body: experiments.upload(ws(caller), req.body) })),
    // A platform dataset, not externally managed: uploads to it are refused (UPLOAD-PLATFORM-DATASET).
    createDataset: authed((req, caller) => ({ body: experiments.createDataset(ws(caller), req.body) })),
    // UPLOAD-READ-DATASETS: datasets listed by name or id, and read by id.
    listDatasets: authed((req, caller) => ({ body: experiments.listDatasets(ws(caller), { name: req.query.get('name') ?? undefined, id: list(req, 'id') }) })),
    readDataset: authed((req, caller) => ({ body: experiments.readDataset(ws(caller), req.params.dataset_id) })),
    // dataset is a required query parameter: the server refused a request without it (UPLOAD-READ-EXAMPLES).
    listExamples: authed((req, caller) => ({ body: experiments.listExamples(ws(caller), req.query.get('dataset')!) })),
    // The spec's experiments, uploaded or traced into, which the wire calls sessions (UPLOAD-READ-EXPERIMENTS).
    listSessions: authed((req, caller) => {
      const name = req.query.get('name') ?? undefined;
      return { body: [...experiments.experimentsNamed(ws(caller), name), ...traceRuns.experimentsNamed(ws(caller), name)] };
    }),
    // TRACE-PROJECTS: tracing projects made and deleted as the official client's createProject and deleteProject do.
    createSession: authed((req, caller) => ({ body: traceRuns.createProject(ws(caller), req.body, req.query.get('upsert') === 'true') })),
    deleteSession: authed((req, caller) => {
      deleteProjects(platform, ws(caller), [req.params.session_id]);
      return accepted('Session deleted');
    }),
    deleteSessions: authed((req, caller) => {
      deleteProjects(platform, ws(caller), req.query.getAll('session_ids'));
      return accepted('Sessions deleted');
    }),
    readSession: authed((req, caller) => {
      const experiment = experiments.experiment(ws(caller), req.params.session_id) ?? traceRuns.experiment(ws(caller), req.params.session_id);
      if (!experiment) throw notFound(`Session ${req.params.session_id} not found`);
      return { body: experiment };
    }),
  });
}

/**
 * Deletes tracing projects, all or none: an uploaded experiment is refused, naming it (the simulator does not delete
 * what an upload made), and an id that names no project answers 404, as the service does.
 */
function deleteProjects(platform: PlatformApi, workspaceId: string, ids: string[]): void {
  for (const id of ids) {
    if (platform.experiments.experiment(workspaceId, id))
      throw unprocessable(`Session ${id} is an uploaded experiment: the simulator deletes tracing projects only`, [
        { loc: ['path', 'session_id'], msg: 'an uploaded experiment, which the simulator does not delete', type: 'value_error' },
      ]);
    if (!platform.traceRuns.hasProject(workspaceId, id)) throw notFound(`Session ${id} not found`);
  }
  for (const id of ids) platform.traceRuns.deleteProject(workspaceId, id);
}

/** GET /runs/stats's query string as the run query POST /runs/stats takes. */
function statsQuery(req: Request): RunQuery {
  const flag = (name: string) => (req.query.has(name) ? req.query.get(name) === 'true' : undefined);
  return {
    session: list(req, 'session'),
    trace: req.query.get('trace') ?? undefined,
    run_type: req.query.get('run_type') ?? undefined,
    is_root: flag('is_root'),
    error: flag('error'),
    filter: req.query.get('filter') ?? undefined,
  };
}

function list(req: Request, name: string): string[] | undefined {
  const values = req.query.getAll(name);
  return values.length > 0 ? values : undefined;
}

/**
 * /runs/batch: its creates, then its updates (langsmith JS client, langsmith-sdk js/src/client.ts; TRACE-BATCH).
 * The schema requires each update's id, a UUID.
 */
function batchOperations(body: { post?: Json[]; patch?: Json[] }): IngestOperation[] {
  const patches = (body.patch ?? []).map((run, i): IngestOperation => ({ kind: 'patch', id: String(run.id).toLowerCase(), run, at: ['body', 'patch', i] }));
  return [...(body.post ?? []).map((run, i): IngestOperation => ({ kind: 'post', run, at: ['body', 'post', i] })), ...patches];
}
