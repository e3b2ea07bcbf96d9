// The control plane's own fixtures: the client of the target's key, which knows the integrations the
// target config gives, and one deployment the tests of a spec file share (on a target with partitions,
// each test its own), created when a test first needs it and polled once until it settles. On a real
// service a deployment costs money and takes minutes. Its exchanges are shown with every test that uses it.
import { clientWithKey, recordedUnder, test as base, targetApiKey, timeOf } from '../../harness/fixtures.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import { SHARED_DEPLOYMENT } from '../../harness/conformance-run.ts';
import { partitionOf, specFileOf } from '../../harness/partition.ts';
import { skipDeclared } from '../../harness/checks/attribution.ts';
import type { Time } from '../../harness/time.ts';
import { createDeployment, deploymentName, pollRevision, repository, withIntegrations, type Deployment, type Polled } from './deployments-steps.ts';

export { expect } from '../../harness/fixtures.ts';

/** The deployment the tests of a spec file share. */
class SharedDeployment {
  private created?: Promise<{ deployment: Deployment; res: ApiResponse<Deployment> }>;
  private polled?: Promise<{ deployment: Deployment } & Polled>;

  constructor(
    private readonly cp: ApiClient,
    private readonly time: Time,
    /** The test id its exchanges are recorded under. */
    readonly evidence: string,
  ) {}

  /** The shared deployment as created (a precondition of the calling test). */
  create(): Promise<{ deployment: Deployment; res: ApiResponse<Deployment> }> {
    this.created ??= forget(
      repository(this.cp).then((repo) => createDeployment(this.cp, repo, deploymentName(this.evidence))),
      () => (this.created = undefined),
    );
    return this.created;
  }

  /** The shared deployment once its first revision has settled, with the statuses seen on the way. */
  settled(): Promise<{ deployment: Deployment } & Polled> {
    this.time.allow('deploy');
    this.polled ??= forget(
      this.create().then(async ({ deployment }) => ({ deployment, ...(await pollRevision(this.cp, this.time, deployment, deployment.latest_revision_id)) })),
      () => (this.polled = undefined),
    );
    return this.polled;
  }
}

/**
 * A shared step that failed is not kept: its failure (a skip, with its reason) belongs to the
 * test that ran it, and the next test tries again.
 */
function forget<T>(step: Promise<T>, drop: () => void): Promise<T> {
  return step.catch((error: unknown) => {
    drop();
    throw error;
  });
}

export const test = base.extend<{ sharedDeployment: SharedDeployment }, { sharedDeployments: Map<string, SharedDeployment> }>({
  // The target's own key: the integrations of its workspace may come from the target config (integration_ids).
  controlPlane: async ({ controlPlane, conformanceRun }, use) => {
    await use(withIntegrations(controlPlane, conformanceRun.target));
  },

  // Kept by the worker, one per spec file (a file's tests stay in one worker, or go on in its
  // replacement); on a target with partitions, where each test sees a platform of its own, one per test.
  sharedDeployments: [async ({}, use) => use(new Map()), { scope: 'worker' }],

  sharedDeployment: async ({ conformanceRun, targetCredentials, sharedDeployments }, use, testInfo) => {
    const key = partitionOf(conformanceRun, testInfo) ?? specFileOf(testInfo.file);
    let shared = sharedDeployments.get(key);
    if (!shared) {
      const evidence = `${SHARED_DEPLOYMENT}-${key.replace(/[^\w.-]+/g, '-')}-${conformanceRun.runKey}`;
      const by = { testId: evidence, file: testInfo.file, titlePath: testInfo.titlePath };
      const cp = clientWithKey(conformanceRun, 'control-plane', by, targetApiKey(conformanceRun, targetCredentials));
      skipDeclared(!cp, `target '${conformanceRun.target.name}' names no control-plane URL`);
      shared = new SharedDeployment(withIntegrations(cp!, conformanceRun.target), timeOf(conformanceRun, by), evidence);
      sharedDeployments.set(key, shared);
    }
    recordedUnder(testInfo, shared.evidence);
    await use(shared);
  },
});
