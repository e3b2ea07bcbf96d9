// The official clients' calls beyond the spec's tables (the SDK's thread update, count and delete,
// run cancel and assistant management; langsmith's projects, id-less runs, filtered listing, run
// stats and the v2 run reads) through both ways a client team starts the simulator: in its own
// process (`startSimulator`, the package's export) and as a separate process (`simulate`), each
// on the real clock as a client developer gets it. The detailed behaviour of each call is tested in
// langgraph-sdk.test.ts and langsmith.test.ts; here, that each start serves them all.
import { Client as Sdk } from '@langchain/langgraph-sdk';
import { expect, test } from '@playwright/test';
import { Client as LangSmith, uuid7 } from 'langsmith';
import { startSimulator } from '../../simulator/start-simulator.ts';
import { startStandIn } from '../self-test/stand-in.ts';

interface Started {
  agentServer: string;
  platformApi: string;
  apiKey: string;
  close(): Promise<void>;
}

const STARTS: Record<string, () => Promise<Started>> = {
  startSimulator: async () => {
    const sim = await startSimulator({ logLevel: 'warn' });
    return { agentServer: sim.urls['agent-server'], platformApi: sim.urls['platform-api'], apiKey: sim.apiKey, close: () => sim.close() };
  },
  simulate: async () => {
    const sim = await startStandIn(['--log-level', 'warn']);
    return { agentServer: sim.planes['agent-server'], platformApi: sim.planes['platform-api'], apiKey: sim.keys.primary, close: () => sim.stop() };
  },
};

for (const [how, start] of Object.entries(STARTS)) {
  test.describe(`a simulator started with ${how}`, () => {
    let sim: Started;
    test.beforeAll(async () => {
      sim = await start();
    });
    test.afterAll(async () => sim?.close());

    test('serves the SDK: threads.update, count and delete, runs.cancel, assistants.create, update and delete', async () => {
      const sdk = new Sdk({ apiUrl: sim.agentServer, apiKey: null });
      const mark = { apc_start: `${how}-${Date.now()}` };
      const thread = await sdk.threads.create({ metadata: mark, graphId: 'agent' });
      expect((await sdk.threads.update(thread.thread_id, { metadata: { color: 'blue' } })).metadata).toMatchObject({ ...mark, color: 'blue' });
      expect(await sdk.threads.count({ metadata: mark })).toBe(1);
      const run = await sdk.runs.create(thread.thread_id, 'agent', { input: { topic: 'cancelled', delay_ms: 60_000 } });
      await sdk.runs.cancel(thread.thread_id, run.run_id, true);
      expect((await sdk.runs.get(thread.thread_id, run.run_id)).status).toBe('interrupted');
      await sdk.threads.delete(thread.thread_id);
      expect(await sdk.threads.count({ metadata: mark })).toBe(0);

      const assistant = await sdk.assistants.create({ graphId: 'agent', name: `apc ${how}` });
      const updated = await sdk.assistants.update(assistant.assistant_id, { metadata: mark });
      expect([updated.assistant_id, updated.version]).toEqual([assistant.assistant_id, assistant.version + 1]);
      await sdk.assistants.delete(assistant.assistant_id);
      await expect(sdk.assistants.get(assistant.assistant_id)).rejects.toThrow(/404/);
    });

    test('serves langsmith: createProject, createRun without an id, listRuns with a filter, getRunStats, runs.retrieve and query, deleteProject', async () => {
      const client = new LangSmith({ apiUrl: sim.platformApi, apiKey: sim.apiKey, autoBatchTracing: false });
      const projectName = `apc-${how}-${Date.now()}`;
      const project = await client.createProject({ projectName });
      const id = uuid7();
      await client.createRun({ id, name: 'with-id', run_type: 'chain', inputs: {}, project_name: projectName, start_time: Date.now() });
      await client.createRun({ name: 'without-id', run_type: 'llm', inputs: {}, project_name: projectName, start_time: Date.now() });
      const listed: string[] = [];
      for await (const run of client.listRuns({ projectName, filter: 'eq(name, "without-id")' })) listed.push(run.name);
      expect(listed).toEqual(['without-id']);
      expect(await client.getRunStats({ projectIds: [project.id] })).toMatchObject({ run_count: 2 });
      expect(await client.runs.retrieve(id, { project_id: project.id, selects: ['NAME'] })).toMatchObject({ id, name: 'with-id' });
      const window = { min_start_time: new Date(Date.now() - 3_600_000).toISOString(), max_start_time: new Date(Date.now() + 3_600_000).toISOString() };
      const queried: string[] = [];
      for await (const run of client.runs.query({ project_ids: [project.id], selects: ['NAME'], ...window })) queried.push(String(run.name));
      expect(queried.sort()).toEqual(['with-id', 'without-id']);
      await client.deleteProject({ projectId: project.id });
      expect(await client.hasProject({ projectName })).toBe(false);
    });
  });
}
