// The embedded simulator of `run` without --target: started in this process before the suites,
// and named to them as a target like any other (harness/target.ts, embeddedTarget). The harness
// and the suites run no simulator code: they reach it over HTTP, its capabilities through the admin
// protocol (harness/admin-client.ts).
import { resolveDeploymentConfig } from '../simulator/deployment-config.ts';
import { Simulator } from '../simulator/simulator.ts';
import {
  EMBEDDED_DEPLOYMENT_CONFIG,
  EMBEDDED_HEADER_VARIABLE,
  EMBEDDED_RECEIVER_URL,
  embeddedTarget,
  type EmbeddedOptions,
  type Target,
} from '../harness/target.ts';
import { environment, secret } from '../harness/environment.ts';

/**
 * Starts the embedded simulator with the run's seed and clock. It reaches the run's webhook
 * receiver at `receiverPort`, and resolves its templated webhook header from the environment
 * (the value the suites give it, unless the user's environment sets one): the suites' process
 * gets the same `variables`.
 */
export async function startEmbeddedSimulator(
  seed: string,
  receiverPort: number,
  options: EmbeddedOptions = {},
): Promise<{ target: Target; simulator: Simulator; variables: Record<string, string> }> {
  const variables = Object.fromEntries(Object.entries(EMBEDDED_HEADER_VARIABLE).map(([name, value]) => [name, secret(name) ?? value]));
  const webhooks = embeddedWebhookConfig(`http://127.0.0.1:${receiverPort}`, { ...environment(), ...variables });
  // Errors only: its info lines (webhook deliveries the suites make fail on purpose) would clutter the run's output.
  const simulator = await Simulator.start({ seed, logLevel: 'error', ...options, ...webhooks });
  return { simulator, target: embeddedTarget(simulator.info(), options), variables };
}

/** The embedded simulator's deployment configuration, its receiver name tunnelled to `receiverUrl`. */
export function embeddedWebhookConfig(receiverUrl: string, env: NodeJS.ProcessEnv) {
  const deploymentConfig = resolveDeploymentConfig(EMBEDDED_DEPLOYMENT_CONFIG, env, "the embedded simulator's deployment configuration");
  return { deploymentConfig, webhookTunnels: { [EMBEDDED_RECEIVER_URL]: receiverUrl } };
}
