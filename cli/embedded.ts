// The embedded simulator of `run` without --target: started in this process before the suites,
// and named to them as a target like any other (harness/target.ts, embeddedTarget). The harness
// and the suites run no simulator code: they reach it over HTTP, its powers through the admin
// protocol (harness/admin-client.ts).
import { resolveDeploymentConfig } from '../simulator/deployment-config.ts';
import { startSimulator, type Simulator } from '../simulator/simulator.ts';
import {
  EMBEDDED_DEPLOYMENT_CONFIG,
  EMBEDDED_HEADER_VARIABLE,
  EMBEDDED_RECEIVER_URL,
  embeddedTarget,
  freePort,
  type EmbeddedOptions,
  type Target,
} from '../harness/target.ts';

/**
 * Starts the embedded simulator with the run's seed and clock. It reaches the run's webhook
 * receiver at the port APC_WEBHOOK_RECEIVER_PORT fixes (picked here when unset), and resolves
 * its templated webhook header from the environment: both are set in this process's
 * environment, which the suites inherit.
 */
export async function startEmbeddedSimulator(seed: string, options: EmbeddedOptions = {}): Promise<{ target: Target; simulator: Simulator }> {
  process.env.APC_WEBHOOK_RECEIVER_PORT ??= String(await freePort());
  process.env.LG_WEBHOOK_APC_CONFORMANCE ??= EMBEDDED_HEADER_VARIABLE.LG_WEBHOOK_APC_CONFORMANCE;
  const webhooks = embeddedWebhookConfig(`http://127.0.0.1:${process.env.APC_WEBHOOK_RECEIVER_PORT}`, process.env);
  // Errors only: its info lines (webhook deliveries the suites make fail on purpose) would clutter the run's output.
  const simulator = await startSimulator({ seed, logLevel: 'error', ...options, ...webhooks });
  return { simulator, target: embeddedTarget(simulator.info(), options) };
}

/** The embedded simulator's deployment configuration, its receiver name tunnelled to `receiverUrl`. */
export function embeddedWebhookConfig(receiverUrl: string, env: NodeJS.ProcessEnv) {
  const deploymentConfig = resolveDeploymentConfig(EMBEDDED_DEPLOYMENT_CONFIG, env, "the embedded simulator's deployment configuration");
  return { deploymentConfig, webhookTunnels: { [EMBEDDED_RECEIVER_URL]: receiverUrl } };
}
