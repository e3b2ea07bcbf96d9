// The deployment configuration file (§6): a langgraph.json, or the same document in YAML.
// Loading it validates it against specs/schemas/deployment-config.schema.yaml and resolves
// `${{ env.VAR }}` in webhooks.headers, which is where a server refuses to start (§6): a
// broken file or a missing variable is a DeploymentConfigError that says what to fix.
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { contract } from '../specs/contract.ts';
import type { DeploymentConfigFile } from '../specs/types/simulator-admin.ts';
import type { UrlPolicy } from '../specs/url-policy.ts';
import { faultProblem, type Fault } from './faults.ts';

/** The file as written (templates unresolved), as /__sim/info publishes it. Keys other than these are allowed and ignored. */
export type { DeploymentConfigFile };

/** What the agent server runs with. */
export interface DeploymentConfig {
  file: DeploymentConfigFile;
  webhooks: {
    /** Outbound headers with their environment references resolved. */
    headers: Record<string, string>;
    urlPolicy?: UrlPolicy;
    disabled: boolean;
  };
  /** Faults set at startup: the simulator's own top-level `faults` key, each as POST /__sim/faults takes it. */
  faults?: Fault[];
}

export class DeploymentConfigError extends Error {}

/** The reference's vendor prefix (LangSmith docs "Use webhooks", docs.langchain.com/langsmith/use-webhooks); §6 says only that it ends in WEBHOOK_ (WEBHOOK-CONFIG-ENV-PREFIX). */
export const DEFAULT_ENV_PREFIX = 'LG_WEBHOOK_';

export const NO_DEPLOYMENT_CONFIG: DeploymentConfig = { file: {}, webhooks: { headers: {}, disabled: false } };

type Env = Record<string, string | undefined>;

const TEMPLATE = /\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Reads, validates and resolves a configuration file, as a server does at startup. */
export function loadDeploymentConfig(path: string, env: Env): DeploymentConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new DeploymentConfigError(`deployment configuration ${path} cannot be read: ${(error as Error).message}`);
  }
  return resolveDeploymentConfig(parseDeploymentConfig(text, path), env, path);
}

/** Parses JSON (a .json file) or YAML (anything else; YAML also reads JSON). */
function parseDeploymentConfig(text: string, source: string): unknown {
  try {
    return extname(source).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new DeploymentConfigError(
      `deployment configuration ${source} is not valid ${extname(source) === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message}`,
    );
  }
}

/** Validates a parsed configuration and resolves its environment references. */
export function resolveDeploymentConfig(value: unknown, env: Env, source = 'deployment configuration'): DeploymentConfig {
  const violations = contract().validateDeploymentConfig(value);
  if (violations.length > 0) {
    const listed = violations.map((v) => `${v.at || '(top level)'} ${v.message}`).join('; ');
    throw new DeploymentConfigError(`${source} does not match the deployment configuration schema: ${listed}`);
  }
  const file = structuredClone(value) as DeploymentConfigFile;
  const prefix = file.webhooks?.env_prefix ?? DEFAULT_ENV_PREFIX;
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(file.webhooks?.headers ?? {})) {
    headers[name] = resolveTemplate(template, env, prefix, `${source}: webhooks.headers.${name}`);
  }
  return {
    file,
    webhooks: { headers, urlPolicy: file.webhooks?.url, disabled: file.http?.disable_webhooks === true },
    faults: faultsOf((value as { faults?: unknown }).faults, source),
  };
}

/** The `faults` list, each checked as POST /__sim/faults checks one. */
function faultsOf(value: unknown, source: string): Fault[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new DeploymentConfigError(`${source}: faults must be a list of faults, as POST /__sim/faults takes them`);
  return value.map((fault, i) => {
    const problem =
      contract()
        .validateSchema('simulator-admin', 'Fault', fault)
        .map((v) => `${v.at || '(the fault)'} ${v.message}`)
        .join('; ') || faultProblem(fault as Fault);
    if (problem) throw new DeploymentConfigError(`${source}: faults[${i}]: ${problem}`);
    return fault as Fault;
  });
}

/** The webhook settings of a configuration as written, for the simulator's /__sim/info. */
export function webhookSettings(config: DeploymentConfig): DeploymentConfigFile {
  const { webhooks, http } = config.file;
  return { ...(webhooks ? { webhooks } : {}), ...(http?.disable_webhooks !== undefined ? { http: { disable_webhooks: http.disable_webhooks } } : {}) };
}

/**
 * `${{ env.VAR }}` in a webhooks.headers value (WEBHOOK-CONFIG-HEADERS-ENV): VAR must carry the prefix
 * (WEBHOOK-CONFIG-ENV-PREFIX) and be set, or the server does not start (WEBHOOK-CONFIG-ENV-MISSING).
 */
function resolveTemplate(template: string, env: Env, prefix: string, where: string): string {
  if (template.replace(TEMPLATE, '').includes('${{')) {
    throw new DeploymentConfigError(`${where} holds a template other than \${{ env.<VAR> }}: '${template}'`);
  }
  return template.replace(TEMPLATE, (_match, name: string) => {
    if (!name.startsWith(prefix)) {
      throw new DeploymentConfigError(
        `${where} references the environment variable ${name}, which does not start with the webhooks.env_prefix '${prefix}'; rename the variable or change env_prefix`,
      );
    }
    const found = env[name];
    if (found === undefined) {
      throw new DeploymentConfigError(
        `${where} references the environment variable ${name}, which is not set; the server does not start until it is set or the reference is removed (the simulator reads the env it is given: startSimulator's env option, or simulate's own environment)`,
      );
    }
    return found;
  });
}
