// What the suites run against: the embedded simulator, a URL, or a YAML config file naming
// the base URL of each plane, the credentials, the target's capabilities and how long its
// processes may take (specs/schemas/target-config.schema.yaml).
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { dirname, resolve as resolvePath } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { contract, type Endpoint, type Operation, type Plane } from '../specs/contract.ts';
import type { Capability, CredentialRole, DeploymentConfigFile, SimulatorInfo } from '../specs/types/simulator-admin.ts';
import { AdminClient } from './admin-client.ts';
import { closest } from '../specs/suggest.ts';
import { environment } from './environment.ts';

/** How long the suites wait for the target's processes, in the target's ms (hold: wall ms). */
export interface Timeouts {
  deploy: number;
  run: number;
  webhook: number;
  stats: number;
  ingest: number;
  cron: number;
  settle: number;
  hold: number;
}

/** Sized for the hosted service (its documentation polls a deployment for up to 30 minutes). */
const DEFAULT_TIMEOUTS: Timeouts = {
  deploy: 30 * 60_000,
  run: 5 * 60_000,
  webhook: 30_000,
  stats: 3 * 60_000,
  ingest: 60_000,
  cron: 2 * 60_000,
  settle: 3_000,
  hold: 1_500,
};

/** A credential from the target config: its secret is read from `env` when a test needs it. */
export interface ConfiguredCredential {
  env: string;
  role: CredentialRole;
  workspaces: string[];
  default_workspace?: string | null;
}

export interface Target {
  name: string;
  kind: 'embedded-simulator' | 'simulator' | 'url' | 'config';
  /** Base URL per endpoint (plane, and region for the platform API). */
  endpoints: Partial<Record<Endpoint, string>>;
  capabilities: Capability[];
  /** Name of the environment variable holding the API key sent as X-Api-Key. */
  apiKeyEnv?: string;
  /** Base URL of the simulator's /__sim admin path, when the target has one. */
  adminUrl?: string;
  /** A public URL that reaches the local webhook receiver (for remote targets). */
  webhookReceiverUrl?: string;
  /** How many times faster than the wall clock the target's time runs (1 for a real service). */
  timeScale: number;
  /** The clock a simulator target publishes (getSimulatorInfo), where it answered. */
  simulatorClock?: SimulatorInfo['clock'];
  timeouts: Timeouts;
  /** The deployment configuration file the agent server runs with, as written (§6). */
  deploymentConfig?: DeploymentConfigFile;
  /** Credentials beyond the API key (workspace rules), from the target config. */
  credentials?: { workspaces: { id: string; name?: string }[]; api_keys: ConfiguredCredential[]; bearer_tokens: ConfiguredCredential[] };
  /** Header, query parameter and field names whose values the recordings redact, beyond the built-in list. */
  redact?: string[];
  /** The operations the spec does not show that the target serves, by plane (a plane not named serves all). */
  notShownOperations?: Partial<Record<Plane, string[]>>;
  /** Integrations of the API key's workspace, for a target that serves no listing of them (listIntegrations). */
  integrationIds?: string[];
  /** OAuth provider ids the target knows, for the authenticate bodies (§2.4 leaves which exist to the target). */
  oauthProviders?: string[];
}

/**
 * Whether the target serves an operation: every documented one the spec shows, and one it does
 * not show unless its config leaves it out of `not_shown_operations`.
 */
export function serves(target: Pick<Target, 'notShownOperations'>, operation: Pick<Operation, 'plane' | 'operationId' | 'notShown'>): boolean {
  const served = target.notShownOperations?.[operation.plane];
  return !operation.notShown || served === undefined || served.includes(operation.operationId);
}

/** Whether the target serves the plane's operation `operationId` (see serves): a test that has other evidence asks before it reads. */
export function servesOperation(target: Pick<Target, 'notShownOperations'>, plane: Plane, operationId: string): boolean {
  return serves(target, contract().operation(plane, operationId));
}

export class TargetError extends Error {}

interface TargetFile {
  name?: string;
  planes: Record<string, string>;
  api_key_env?: string;
  capabilities?: Capability[];
  webhook_receiver_url?: string;
  time_scale?: number;
  timeouts?: Partial<Record<keyof Timeouts, string>>;
  deployment_config?: string | Record<string, unknown>;
  credentials?: { workspaces?: { id: string; name?: string }[]; api_keys?: ConfiguredCredential[]; bearer_tokens?: ConfiguredCredential[] };
  redact?: string[];
  not_shown_operations?: Partial<Record<Plane, string[]>>;
  integration_ids?: string[];
  oauth_providers?: string[];
}

/** Options of the embedded simulator (run --clock, --time-scale, --run-duration). */
export interface EmbeddedOptions {
  clock?: 'virtual' | 'real';
  timeScale?: number;
  runDurationMs?: number;
}

/**
 * Checks a `--target` before a run starts, so a mistyped one is a usage error: a URL, or
 * a config file that exists, parses, matches its schema and whose variables are set.
 * Answers the form the run should use (absolute path).
 */
export function checkTarget(spec: string, cwd = process.cwd(), env: NodeJS.ProcessEnv = environment()): string {
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
  fromFile(path, env);
  return path;
}

/**
 * Resolves `--target`: a URL or a config file. The embedded simulator is not resolved here: `run`
 * without --target starts it (cli/embedded.ts) and names it to the suites in the run plan,
 * so the harness runs no simulator code and reaches every simulator through its admin protocol.
 */
export async function resolveTarget(spec: string): Promise<Target> {
  if (/^https?:\/\//i.test(spec)) return fromUrl(spec.replace(/\/+$/, ''));
  if (existsSync(spec)) {
    const target = fromFile(spec);
    // A simulator named by a config file publishes its clock and the deployment configuration it runs with.
    const published = target.adminUrl ? await probeSimulator(target.adminUrl) : undefined;
    target.deploymentConfig ??= published?.deploymentConfig;
    target.simulatorClock = published?.clock;
    return target;
  }
  throw new TargetError(`--target '${spec}' is neither an http(s) URL nor an existing config file`);
}

/**
 * How many spec files a run takes at a time when --workers is not given: on a simulator with
 * partitions (the embedded one included, `undefined`), one per core, as each file sees a platform
 * of its own (same seed, same report on any number); one on another simulator, whose ids and clock
 * follow one order; on any other target, where a run spends its time waiting for answers, four,
 * but no more than the machine's cores: every worker's requests share the target's rate limits
 * (one API key), and on a small machine more workers only add 429s and time-outs.
 */
export function defaultWorkers(target: Pick<Target, 'kind' | 'capabilities'> | undefined, cores = availableParallelism()): number {
  if (!target || target.capabilities.includes('partitions')) return cores;
  return target.kind === 'embedded-simulator' || target.kind === 'simulator' || target.capabilities.length > 0 ? 1 : Math.min(4, cores);
}

/** The embedded simulator as a target, from what it publishes (getSimulatorInfo). */
export function embeddedTarget(info: SimulatorInfo, embedded: EmbeddedOptions = {}): Target {
  const timeScale = embedded.clock === 'real' ? (embedded.timeScale ?? 1) : 1;
  return {
    name: embedded.clock === 'real' ? `embedded simulator (real clock ×${timeScale})` : 'embedded simulator',
    kind: 'embedded-simulator',
    endpoints: { ...info.planes },
    capabilities: info.capabilities,
    adminUrl: info.planes['agent-server'],
    webhookReceiverUrl: EMBEDDED_RECEIVER_URL,
    timeScale,
    timeouts: DEFAULT_TIMEOUTS,
    deploymentConfig: info.deployment_config,
    oauthProviders: EMBEDDED_OAUTH_PROVIDERS,
  };
}

async function fromUrl(url: string): Promise<Target> {
  const info = await probeSimulator(url);
  if (info) {
    return {
      name: `simulator at ${url}`,
      kind: 'simulator',
      endpoints: info.planes,
      capabilities: info.capabilities,
      adminUrl: url,
      timeScale: info.timeScale,
      simulatorClock: info.clock,
      timeouts: DEFAULT_TIMEOUTS,
      deploymentConfig: info.deploymentConfig,
    };
  }
  return { name: url, kind: 'url', endpoints: { 'agent-server': url }, capabilities: [], timeScale: 1, timeouts: DEFAULT_TIMEOUTS };
}

function fromFile(path: string, env: NodeJS.ProcessEnv = environment()): Target {
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(path, 'utf8')) ?? {};
  } catch (error) {
    throw new TargetError(`target config ${path} is not valid YAML: ${(error as Error).message}`);
  }
  const violations = contract().validateTargetConfig(parsed);
  if (violations.length > 0) {
    throw new TargetError(`target config ${path}: ${violations.map((v) => `${v.at || '(top level)'} ${v.message}${didYouMean(v)}`).join('; ')}`);
  }
  const file = parsed as TargetFile;
  const planes: Partial<Record<Endpoint, string>> = {};
  for (const [name, url] of Object.entries(file.planes)) planes[name as Endpoint] = url.replace(/\/+$/, '');
  const unset = [
    file.api_key_env,
    ...(file.credentials?.api_keys ?? []).map((c) => c.env),
    ...(file.credentials?.bearer_tokens ?? []).map((c) => c.env),
  ].filter((name): name is string => name !== undefined && !env[name]);
  if (unset.length > 0) throw new TargetError(`target config ${path} names environment variables that are not set: ${[...new Set(unset)].join(', ')}`);
  const capabilities = file.capabilities ?? [];
  checkNotShown(file.not_shown_operations ?? {}, path);
  return {
    name: file.name ?? path,
    kind: 'config',
    endpoints: planes,
    capabilities,
    apiKeyEnv: file.api_key_env,
    adminUrl: capabilities.length > 0 ? Object.values(planes)[0] : undefined,
    webhookReceiverUrl: file.webhook_receiver_url,
    timeScale: file.time_scale ?? 1,
    timeouts: { ...DEFAULT_TIMEOUTS, ...Object.fromEntries(Object.entries(file.timeouts ?? {}).map(([key, value]) => [key, durationMs(value)])) },
    deploymentConfig: file.deployment_config === undefined ? undefined : deploymentConfigOf(file.deployment_config, path),
    credentials: file.credentials && {
      workspaces: file.credentials.workspaces ?? [],
      api_keys: file.credentials.api_keys ?? [],
      bearer_tokens: file.credentials.bearer_tokens ?? [],
    },
    redact: file.redact,
    notShownOperations: file.not_shown_operations,
    integrationIds: file.integration_ids,
    oauthProviders: file.oauth_providers,
  };
}

/** Each operation `not_shown_operations` names is one the spec does not show on that plane. */
function checkNotShown(declared: Partial<Record<Plane, string[]>>, path: string): void {
  for (const [plane, names] of Object.entries(declared) as [Plane, string[]][]) {
    const known = contract()
      .operationsOf(plane)
      .filter((op) => op.notShown)
      .map((op) => op.operationId);
    for (const name of names.filter((n) => !known.includes(n))) {
      const guess = closest(name, known);
      throw new TargetError(
        `target config ${path}: not_shown_operations.${plane} names '${name}', which is not an operation of the ${plane} plane that the spec does not show${guess ? ` (did you mean '${guess}'?)` : ''}; those are: ${known.join(', ')}`,
      );
    }
  }
}

/** For a key the target config schema does not allow: the allowed key at that place it is closest to. */
function didYouMean(violation: { at: string; message: string }): string {
  const key = /^must not have property '(.+)'$/.exec(violation.message)?.[1];
  if (key === undefined) return '';
  const schema = contract().targetConfigSchema as Schema;
  const resolveRef = (node: Schema | undefined) => (node?.$ref?.startsWith('#/$defs/') ? schema.$defs?.[node.$ref.slice('#/$defs/'.length)] : node);
  let node: Schema | undefined = schema;
  for (const step of violation.at.split('/').filter(Boolean)) node = resolveRef(/^\d+$/.test(step) ? node?.items : node?.properties?.[step]);
  const guess = closest(key, Object.keys(node?.properties ?? {}));
  return guess ? ` (did you mean '${guess}'?)` : '';
}

interface Schema {
  $ref?: string;
  $defs?: Record<string, Schema>;
  properties?: Record<string, Schema>;
  items?: Schema;
}

/** The deployment configuration a target config names, as written (its templates unresolved). */
function deploymentConfigOf(value: string | Record<string, unknown>, configPath: string): DeploymentConfigFile {
  let parsed: unknown = value;
  let source = `target config ${configPath}: deployment_config`;
  if (typeof value === 'string') {
    source = resolvePath(dirname(configPath), value);
    if (!existsSync(source)) throw new TargetError(`target config ${configPath}: deployment_config ${value} does not exist`);
    try {
      // YAML, or JSON (a langgraph.json), which YAML reads too.
      parsed = parseYaml(readFileSync(source, 'utf8'));
    } catch (error) {
      throw new TargetError(`deployment configuration ${source} is not valid JSON or YAML: ${(error as Error).message}`);
    }
  }
  // A variable the harness lacks is no error: only the rules that read its value are skipped.
  const violations = contract().validateDeploymentConfig(parsed);
  if (violations.length > 0)
    throw new TargetError(
      `${source} does not match the deployment configuration schema: ${violations.map((v) => `${v.at || '(top level)'} ${v.message}`).join('; ')}`,
    );
  return parsed as DeploymentConfigFile;
}

/** "90s", "30m", "1500ms", "1h" in ms. */
function durationMs(text: string): number {
  const match = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)$/.exec(text);
  if (!match) throw new TargetError(`'${text}' is not a duration such as 1500ms, 90s, 30m or 1h`);
  return Math.round(Number(match[1]) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[match[2] as 'ms' | 's' | 'm' | 'h']);
}

async function probeSimulator(url: string): Promise<
  | {
      planes: Partial<Record<Endpoint, string>>;
      capabilities: Capability[];
      timeScale: number;
      clock?: SimulatorInfo['clock'];
      deploymentConfig?: DeploymentConfigFile;
    }
  | undefined
> {
  try {
    const response = await new AdminClient(url, { timeoutMs: 3000 }).getSimulatorInfo();
    // Anything else at that path (a 404, a page) is no simulator: its fields are not trusted.
    const body = response.status === 200 ? (response.json as Partial<SimulatorInfo> | undefined) : undefined;
    if (body?.simulator !== 'agent-platform-simulator') return undefined;
    return {
      planes: body.planes ?? {},
      capabilities: body.capabilities ?? [],
      timeScale: body.clock?.time_scale ?? 1,
      clock: body.clock,
      deploymentConfig: body.deployment_config,
    };
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
export const EMBEDDED_URL_POLICY = {
  allowed_domains: ['receiver.apc.test', '*.apc-allowed.test'],
  allowed_ports: [80],
  max_url_length: 2048,
  disable_loopback: true,
};

/**
 * The OAuth providers the embedded simulator's config names. It accepts any provider id; named, the
 * authenticate tests judge its answers to them strictly, as on a target whose config names its own.
 */
export const EMBEDDED_OAUTH_PROVIDERS = ['apc-provider', 'apc-other-provider'];

/** The embedded simulator's deployment configuration file (cli/embedded.ts starts it with it). */
export const EMBEDDED_DEPLOYMENT_CONFIG: DeploymentConfigFile = {
  webhooks: { headers: { 'X-Apc-Conformance': 'static-header', 'X-Apc-From-Env': '${{ env.LG_WEBHOOK_APC_CONFORMANCE }}' }, url: EMBEDDED_URL_POLICY },
};

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
  return new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
