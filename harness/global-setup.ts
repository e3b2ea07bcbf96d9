// Finds the target and puts a recording proxy in front of each of its planes.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { planeOf, type Endpoint } from '../specs/contract.ts';
import { WebhookReceiver } from './webhook-receiver.ts';
import { deliveryExchange, recordDeliveries } from './webhook-evidence.ts';
import { harText, toHar } from './proxy/har.ts';
import { RecordingProxy } from './proxy/recording-proxy.ts';
import { Redaction, shareRunRedaction } from './proxy/redact.ts';
import { receiverUrl, shareConformanceRun, type ConformanceRun } from './conformance-run.ts';
import { type ConformancePlan, planOf } from './conformance-options.ts';
import { secret } from './environment.ts';
import { defaultProfile } from './profile.ts';
import { cleanUp } from './leftovers.ts';
import { recordConformanceEnd, recordTargetLost } from './conformance-end.ts';
import { TargetWatch } from './target-watch.ts';
import { AdminClient, answered } from './admin-client.ts';
import { resolveTarget, TargetError, type Target } from './target.ts';
import { paceOf } from './simulator-pace.ts';
import type { FullConfig } from '@playwright/test';
import type { Exchange } from '../specs/evidence-protocol.ts';

export default async function globalSetup(config: FullConfig): Promise<() => Promise<void>> {
  const plan = planOf(config);
  const { options } = plan;
  const outDir = plan.staging;
  mkdirSync(outDir, { recursive: true });
  // Without --target, the CLI has started the embedded simulator and names it in the plan.
  const target = plan.embedded ?? (await resolveTarget(options.target!));
  // The embedded simulator starts with the run's seed and goes with the run (the CLI closes it).
  const embedded = target.kind === 'embedded-simulator';
  // Without partitions, every spec file moves the one virtual clock: they must take turns.
  if (plan.workers > 1 && target.capabilities.includes('virtual-clock') && !target.capabilities.includes('partitions')) {
    throw new TargetError(`target '${target.name}' has a virtual clock, which every test moves, and no partitions: it takes one worker (leave out --workers)`);
  }
  const { seed } = options;

  // A simulator started elsewhere is reset to the run's seed: same seed, same ids, same report. A
  // slow real clock is reset faster (simulator-pace.ts), and the run keeps the pace it answers.
  if (!embedded && target.capabilities.includes('reset') && target.adminUrl) {
    const { resetTo } = paceOf(target);
    const info = answered(
      await new AdminClient(target.adminUrl).resetSimulator({ seed, ...(resetTo ? { time_scale: resetTo } : {}) }),
      `resetting the simulator at ${target.adminUrl}`,
    );
    if (resetTo && info.clock.kind === 'real') {
      target.timeScale = info.clock.time_scale ?? 1;
      target.simulatorClock = info.clock;
      target.name = `${target.name} (real clock ×${target.timeScale})`;
    }
  }
  const exchanges: Exchange[] = [];
  // One redaction for every plane: a secret sent to one is known when another reflects it.
  const redaction = new Redaction({ names: target.redact, secrets: secretsOf(target) });
  shareRunRedaction(redaction);
  const { proxies, running } = await startProxies(plan, target, exchanges, redaction, options.forwardTestId);
  const runKey = target.capabilities.includes('seeded-ids') ? seed : `${seed}-${Date.now().toString(36)}`;
  const profile = options.profile ?? defaultProfile(target);
  // One receiver for every worker, at the port --webhook-receiver-port fixes (a URL policy or a tunnel names it).
  const token = randomUUID();
  // Each delivery is an exchange of the run too, from the target to the receiver, redacted like the others.
  const deliveries: Exchange[] = [];
  const receiver = await WebhookReceiver.start({
    port: options.webhookReceiverPort ?? 0,
    controlToken: token,
    onRequest: (request, startedAt) => deliveries.push(deliveryExchange(request, receiverUrl(context), redaction, startedAt)),
  });
  const context: ConformanceRun = { plan, target, proxies, receiver: { url: receiver.url, token }, profile, runKey };
  shareConformanceRun(context);

  return async () => {
    // A simulator is reset before its next run: only other targets are cleaned up.
    const clean = !embedded && !target.capabilities.includes('reset');
    const end = await cleanUp(context, exchanges, clean ? apiKeysOf(target) : [], clean);
    // The embedded simulator goes with the run: nothing is left of it.
    recordConformanceEnd(plan, embedded ? { ...end, left: {} } : end);
    await Promise.all([...running.map((p) => p.close()), receiver.close()]);
    recordDeliveries(plan, deliveries);
    // In the order they began, as a browser's HAR: deliveries arrive while the suites' requests are under way.
    const all = [...exchanges, ...deliveries].sort((a, b) => a.startedDateTime.localeCompare(b.startedDateTime));
    writeFileSync(join(outDir, 'exchanges.har'), harText(toHar(all)));
  };
}

/** A recording proxy in front of each plane of the target, all recording into `exchanges`. */
async function startProxies(
  plan: ConformancePlan,
  target: Target,
  exchanges: Exchange[],
  redaction: Redaction,
  forwardTest: boolean,
): Promise<{ proxies: Partial<Record<Endpoint, string>>; running: RecordingProxy[] }> {
  const proxies: Partial<Record<Endpoint, string>> = {};
  const running: RecordingProxy[] = [];
  // A target lost mid-run stops the run as Ctrl-C would, and the report says why.
  const watch = new TargetWatch(target.endpoints, (loss) => {
    recordTargetLost(plan, loss);
    process.kill(process.pid, 'SIGINT');
  });
  for (const [endpoint, url] of Object.entries(target.endpoints) as [Endpoint, string][]) {
    // --forward-test-id: the project's broken targets mutate the requests of chosen tests only.
    const proxy = new RecordingProxy({
      plane: planeOf(endpoint),
      name: endpoint,
      target: url,
      store: exchanges,
      forwardTest,
      redaction,
      onExchange: (exchange) => watch.seen(endpoint, exchange),
    });
    proxies[endpoint] = await proxy.start();
    running.push(proxy);
  }
  return { proxies, running };
}

/** The secrets the target config names (API keys and bearer tokens), replaced wherever a recording shows them. */
function secretsOf(target: Target): string[] {
  const names = [target.apiKeyEnv, ...[...(target.credentials?.api_keys ?? []), ...(target.credentials?.bearer_tokens ?? [])].map((c) => c.env)];
  return names.flatMap((name) => {
    const value = name && secret(name);
    return value ? [value] : [];
  });
}

/** The keys the cleanup deletes with: the target's, then those of its other workspaces. */
function apiKeysOf(target: Target): string[] {
  const names = [target.apiKeyEnv, ...(target.credentials?.api_keys ?? []).map((c) => c.env)].filter((n): n is string => n !== undefined);
  return [...new Set(names.map(secret).filter((key): key is string => !!key))];
}
