// What the suites run against: the embedded simulator, a URL, or a YAML config file
// naming the base URL of each plane, the API key variable and the target's capabilities.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ENDPOINTS, type Endpoint } from '../specs/contract.ts';
import { startSimulator, type Capability, type Simulator } from '../simulator/simulator.ts';
import { resolveDeploymentConfig } from '../simulator/deployment-config.ts';

export const KNOWN_CAPABILITIES: Capability[] = [
  'virtual-clock',
  'reset',
  'seeded-ids',
  'fault-injection',
  'workspace-credentials',
  'oauth-completion',
  'revision-faults',
  'rate-limit-reset',
];

export interface Target {
  name: string;
  kind: 'embedded-simulator' | 'simulator' | 'url' | 'config';
  /** Base URL per endpoint (plane, and region for the platform API). */
  planes: Partial<Record<Endpoint, string>>;
  capabilities: Capability[];
  /** Name of the environment variable holding the API key sent as X-Api-Key. */
  apiKeyEnv?: string;
  /** Base URL of the simulator's /__sim admin path, when the target has one. */
  adminUrl?: string;
  /** A public URL that reaches the local webhook receiver (for remote targets). */
  webhookReceiverUrl?: string;
}

export class TargetError extends Error {}

interface TargetFile {
  name?: string;
  planes?: Record<string, string>;
  api_key_env?: string;
  capabilities?: string[];
  webhook_receiver_url?: string;
}

/**
 * Checks a `--target` before a run starts, so a mistyped one is a usage error: a URL, or
 * a config file that exists and parses. Answers the form the run should use (absolute path).
 */
export function checkTarget(spec: string, cwd = process.cwd()): string {
  if (/^https?:\/\//i.test(spec)) {
    try {
      new URL(spec);
    } catch {
      throw new TargetError(`--target '${spec}' is not a valid URL`);
    }
    return spec;
  }
  const path = resolvePath(cwd, spec);
  if (!existsSync(path)) throw new TargetError(`--target '${spec}' is neither an http(s) URL nor an existing config file`);
  fromFile(path);
  return path;
}

/** Resolves `--target`; with none, starts the embedded simulator (returned for teardown). */
export async function resolveTarget(spec: string | undefined, seed: string): Promise<{ target: Target; simulator?: Simulator }> {
  if (!spec) {
    const simulator = await startSimulator({ seed, ...(await embeddedWebhookSetup()) });
    return {
      simulator,
      target: {
        name: 'embedded simulator',
        kind: 'embedded-simulator',
        planes: { ...simulator.urls },
        capabilities: simulator.info().capabilities,
        adminUrl: simulator.urls['agent-server'],
        webhookReceiverUrl: EMBEDDED_RECEIVER_URL,
      },
    };
  }
  if (/^https?:\/\//i.test(spec)) return { target: await fromUrl(spec.replace(/\/+$/, '')) };
  if (existsSync(spec)) return { target: fromFile(spec) };
  throw new TargetError(`--target '${spec}' is neither an http(s) URL nor an existing config file`);
}

async function fromUrl(url: string): Promise<Target> {
  const info = await probeSimulator(url);
  if (info) {
    return { name: `simulator at ${url}`, kind: 'simulator', planes: info.planes, capabilities: info.capabilities, adminUrl: url };
  }
  return { name: url, kind: 'url', planes: { 'agent-server': url }, capabilities: [] };
}

function fromFile(path: string): Target {
  let parsed: TargetFile;
  try {
    parsed = (parseYaml(readFileSync(path, 'utf8')) ?? {}) as TargetFile;
  } catch (error) {
    throw new TargetError(`target config ${path} is not valid YAML: ${(error as Error).message}`);
  }
  const planes: Partial<Record<Endpoint, string>> = {};
  for (const [name, url] of Object.entries(parsed.planes ?? {})) {
    if (!(ENDPOINTS as readonly string[]).includes(name)) {
      throw new TargetError(`target config ${path}: unknown plane '${name}' (known: ${ENDPOINTS.join(', ')})`);
    }
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) {
      throw new TargetError(`target config ${path}: planes.${name} must be an http(s) URL`);
    }
    planes[name as Endpoint] = url.replace(/\/+$/, '');
  }
  if (Object.keys(planes).length === 0) throw new TargetError(`target config ${path} names no plane URL under 'planes:'`);
  const capabilities = (parsed.capabilities ?? []).map((c) => {
    if (!(KNOWN_CAPABILITIES as string[]).includes(c)) {
      throw new TargetError(`target config ${path}: unknown capability '${c}' (known: ${KNOWN_CAPABILITIES.join(', ')})`);
    }
    return c as Capability;
  });
  return {
    name: parsed.name ?? path,
    kind: 'config',
    planes,
    capabilities,
    apiKeyEnv: parsed.api_key_env,
    adminUrl: capabilities.length > 0 ? Object.values(planes)[0] : undefined,
    webhookReceiverUrl: parsed.webhook_receiver_url,
  };
}

async function probeSimulator(url: string): Promise<{ planes: Partial<Record<Endpoint, string>>; capabilities: Capability[] } | undefined> {
  try {
    const response = await fetch(`${url}/__sim/info`, { signal: AbortSignal.timeout(3000) });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { simulator?: string; planes?: Partial<Record<Endpoint, string>>; capabilities?: Capability[] };
    if (body.simulator !== 'agent-platform-simulator') return undefined;
    return { planes: body.planes ?? {}, capabilities: body.capabilities ?? [] };
  } catch {
    return undefined;
  }
}

// The embedded simulator reaches the suites' webhook receiver under a fixed name, as a real
// deployment would through a tunnel, so reports do not depend on the receiver's port. Its
// deployment configuration sets webhook headers, a static one and one from the environment,
// and a URL policy that allows the receiver only (§6), so the policy's rules run too.
export const EMBEDDED_RECEIVER_URL = 'http://receiver.apc.test';
/** The variable the configuration's templated header reads, with the value the suites give it. */
export const EMBEDDED_HEADER_VARIABLE = { LG_WEBHOOK_APC_CONFORMANCE: 'resolved-from-the-environment' };
/** The embedded simulator's webhooks.url policy: the receiver, and made-up hosts the policy tests use. */
export const EMBEDDED_URL_POLICY = { allowed_domains: ['receiver.apc.test', '*.apc-allowed.test'], allowed_ports: [80], max_url_length: 2048, disable_loopback: true };

async function embeddedWebhookSetup() {
  process.env.APC_WEBHOOK_RECEIVER_PORT ??= String(await freePort());
  process.env.LG_WEBHOOK_APC_CONFORMANCE ??= EMBEDDED_HEADER_VARIABLE.LG_WEBHOOK_APC_CONFORMANCE;
  return embeddedWebhookConfig(`http://127.0.0.1:${process.env.APC_WEBHOOK_RECEIVER_PORT}`, process.env);
}

/** The embedded simulator's deployment configuration, its receiver name tunnelled to `receiverUrl`. */
export function embeddedWebhookConfig(receiverUrl: string, env: NodeJS.ProcessEnv) {
  const headers = { 'X-Apc-Conformance': 'static-header', 'X-Apc-From-Env': '${{ env.LG_WEBHOOK_APC_CONFORMANCE }}' };
  const deploymentConfig = resolveDeploymentConfig({ webhooks: { headers, url: EMBEDDED_URL_POLICY } }, env, "the embedded simulator's deployment configuration");
  return { deploymentConfig, webhookTunnels: { [EMBEDDED_RECEIVER_URL]: receiverUrl } };
}

/**
 * A free port for a server that another process starts later. It is picked below the ephemeral
 * range, so that neither an outgoing connection nor a server listening on port 0 takes it in
 * the meantime (both draw from that range).
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port found between 10000 and ${low}`);
}

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return low > 11_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
