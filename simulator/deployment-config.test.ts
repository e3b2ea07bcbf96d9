// The deployment configuration file (§6): JSON or YAML, checked against its schema, with
// ${{ env.VAR }} resolved in webhooks.headers under env_prefix; a file the server cannot use
// stops `simulate --config` with exit code 2 and a message saying what to fix.
import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConformanceReport } from '../reports/conformance-report.ts';
import { runCli } from '../tests/self-test/run-cli.ts';
import { freePort } from '../harness/target.ts';
import { Simulator } from './simulator.ts';
import { DEFAULT_ENV_PREFIX, DeploymentConfigError, loadDeploymentConfig, resolveDeploymentConfig, webhookSettings } from './deployment-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'apc-deployment-config-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function failure(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(DeploymentConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a DeploymentConfigError');
}

test('a langgraph.json and the same document in YAML load alike', () => {
  const document = {
    graphs: { agent: './graph.ts:graph' },
    webhooks: {
      headers: { 'X-Team': 'core' },
      url: { allowed_domains: ['*.example.com'], require_https: true, allowed_ports: [443], disable_loopback: true, max_url_length: 2000 },
    },
    http: { disable_webhooks: false },
  };
  const json = loadDeploymentConfig(file('langgraph.json', JSON.stringify(document)), {});
  const yaml = loadDeploymentConfig(
    file(
      'langgraph.yaml',
      'graphs:\n  agent: ./graph.ts:graph\nwebhooks:\n  headers:\n    X-Team: core\n  url:\n    allowed_domains: ["*.example.com"]\n    require_https: true\n    allowed_ports: [443]\n    disable_loopback: true\n    max_url_length: 2000\nhttp:\n  disable_webhooks: false\n',
    ),
    {},
  );
  expect(yaml).toEqual(json);
  expect(json.webhooks).toEqual({ headers: { 'X-Team': 'core' }, urlPolicy: document.webhooks.url, disabled: false });
  expect(webhookSettings(json)).toEqual({ webhooks: document.webhooks, http: { disable_webhooks: false } });
});

test('http.disable_webhooks: true turns webhooks off; an empty file turns nothing on', () => {
  expect(resolveDeploymentConfig({ http: { disable_webhooks: true } }, {}).webhooks.disabled).toBe(true);
  expect(resolveDeploymentConfig({}, {}).webhooks).toEqual({ headers: {}, urlPolicy: undefined, disabled: false });
});

test('${{ env.VAR }} in a header value is replaced by the variable, several times and with spaces or none', () => {
  const config = resolveDeploymentConfig(
    {
      webhooks: {
        headers: { Authorization: 'Bearer ${{ env.LG_WEBHOOK_TOKEN }}', 'X-Pair': '${{env.LG_WEBHOOK_A}}:${{  env.LG_WEBHOOK_B  }}', 'X-Plain': 'no template' },
      },
    },
    { LG_WEBHOOK_TOKEN: 's3cret', LG_WEBHOOK_A: 'a', LG_WEBHOOK_B: 'b' },
  );
  expect(config.webhooks.headers).toEqual({ Authorization: 'Bearer s3cret', 'X-Pair': 'a:b', 'X-Plain': 'no template' });
  expect(config.file.webhooks?.headers?.Authorization, 'the file as written keeps the reference').toBe('Bearer ${{ env.LG_WEBHOOK_TOKEN }}');
});

test('the default env_prefix is LG_WEBHOOK_; a variable outside the prefix is refused', () => {
  expect(DEFAULT_ENV_PREFIX).toMatch(/WEBHOOK_$/);
  const message = failure(() => resolveDeploymentConfig({ webhooks: { headers: { 'X-Key': '${{ env.SECRET_KEY }}' } } }, { SECRET_KEY: 'k' }));
  expect(message).toMatch(
    /webhooks.headers.X-Key references the environment variable SECRET_KEY, which does not start with the webhooks.env_prefix 'LG_WEBHOOK_'/,
  );
});

test('env_prefix replaces the default prefix', () => {
  const webhooks = { env_prefix: 'HOOK_', headers: { 'X-Key': '${{ env.HOOK_KEY }}' } };
  expect(resolveDeploymentConfig({ webhooks }, { HOOK_KEY: 'k' }).webhooks.headers).toEqual({ 'X-Key': 'k' });
  expect(
    failure(() => resolveDeploymentConfig({ webhooks: { ...webhooks, headers: { 'X-Key': '${{ env.LG_WEBHOOK_KEY }}' } } }, { LG_WEBHOOK_KEY: 'k' })),
  ).toMatch(/does not start with the webhooks.env_prefix 'HOOK_'/);
});

test('a missing variable is an error naming the header and the variable', () => {
  expect(failure(() => resolveDeploymentConfig({ webhooks: { headers: { Authorization: 'Bearer ${{ env.LG_WEBHOOK_TOKEN }}' } } }, {}))).toMatch(
    /webhooks.headers.Authorization references the environment variable LG_WEBHOOK_TOKEN, which is not set; the server does not start/,
  );
});

test('a template other than ${{ env.VAR }} is an error, not a literal value', () => {
  expect(failure(() => resolveDeploymentConfig({ webhooks: { headers: { 'X-Key': '${{ secrets.KEY }}' } } }, {}))).toMatch(/holds a template other than/);
});

test('a file that does not match the schema, or does not parse, says where', () => {
  expect(failure(() => resolveDeploymentConfig({ webhooks: { url: { allowed_ports: ['443'] } } }, {}))).toMatch(
    /\/webhooks\/url\/allowed_ports\/0 must be integer/,
  );
  expect(failure(() => resolveDeploymentConfig({ http: { disable_webhooks: 'yes' } }, {}))).toMatch(/\/http\/disable_webhooks must be boolean/);
  expect(failure(() => resolveDeploymentConfig({ webhooks: { headers: { 'X-N': 1 } } }, {}))).toMatch(/\/webhooks\/headers\/X-N must be string/);
  expect(failure(() => loadDeploymentConfig(file('broken.json', '{"webhooks": '), {}))).toMatch(/broken.json is not valid JSON/);
  expect(failure(() => loadDeploymentConfig(join(dir, 'absent.json'), {}))).toMatch(/absent.json cannot be read/);
});

test('a top-level faults list is set at startup, each checked as POST /__sim/faults checks one', async () => {
  const config = loadDeploymentConfig(file('faults.yaml', 'faults:\n  - { method: POST, path: /threads, status: 503, count: 2 }\n'), {});
  expect(config.faults).toEqual([{ method: 'POST', path: '/threads', status: 503, count: 2 }]);
  expect(webhookSettings(config)).toEqual({});
  const sim = await Simulator.start({ deploymentConfig: config, quiet: true });
  try {
    const answers = [];
    for (let i = 0; i < 3; i++)
      answers.push(await fetch(`${sim.urls['agent-server']}/threads`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }));
    expect(answers.map((res) => res.status)).toEqual([503, 503, 200]);
    // The refusal names what set the fault: the config, not the admin path.
    expect(await answers[0].json()).toEqual({ detail: "Fault set by the faults list of the simulator's config: POST /threads answers 503" });
  } finally {
    await sim.close();
  }
  expect(failure(() => resolveDeploymentConfig({ faults: { status: 503 } }, {}))).toMatch(/faults must be a list/);
  expect(failure(() => resolveDeploymentConfig({ faults: [{ status: 503, count: 0 }] }, {}))).toMatch(/faults\[0\]: \/count must be >= 1/);
  expect(failure(() => resolveDeploymentConfig({ faults: [{ path: '/threads' }] }, {}))).toMatch(/faults\[0\]: a fault needs an effect/);
});

test.describe('simulate --config', () => {
  // The rule a running target cannot show (the catalogue marks it unobservable): checked on the simulator's own startup.
  test('stops with exit code 2 and the reason when a referenced variable is missing', { tag: '@WEBHOOK-CONFIG-ENV-MISSING' }, async () => {
    const path = file('missing-var.json', JSON.stringify({ webhooks: { headers: { Authorization: 'Bearer ${{ env.LG_WEBHOOK_APC_UNSET }}' } } }));
    const run = await runCli(['simulate', '--config', path]);
    expect(run.code, run.stdout).toBe(2);
    expect(run.stderr).toMatch(/LG_WEBHOOK_APC_UNSET, which is not set/);
    expect(run.stdout).not.toMatch(/\[simulator\]/);
  });

  test('stops with exit code 2 when the file is invalid', async () => {
    const run = await runCli(['simulate', '--config', file('invalid.yaml', 'webhooks:\n  url:\n    require_https: maybe\n')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/invalid.yaml does not match the deployment configuration schema: \/webhooks\/url\/require_https must be boolean/);
  });
});

test.describe('the webhook-config suites against simulators started with a configuration', () => {
  // The embedded conformance target sets no URL policy (other suites name webhook URLs of
  // their own), so the suites' refusal checks run here, on simulators whose configuration
  // sets each setting. The receiver's port is fixed so the policy can admit it.
  const cases: [string, (port: number) => unknown, Record<string, string>][] = [
    [
      'a URL policy and headers',
      (port) => ({
        webhooks: {
          headers: { 'X-Static': 'on', 'X-Token': 'Bearer ${{ env.LG_WEBHOOK_APC_TEST }}' },
          url: { allowed_domains: ['127.0.0.1', '*.apc-allowed.test'], allowed_ports: [port, 443], max_url_length: 2048, disable_loopback: true },
        },
      }),
      {
        'WEBHOOK-CONFIG-ALLOWED-DOMAINS': 'pass',
        'WEBHOOK-CONFIG-ALLOWED-PORTS': 'pass',
        'WEBHOOK-CONFIG-DISABLE-LOOPBACK': 'pass',
        'WEBHOOK-CONFIG-MAX-URL-LENGTH': 'pass',
        'WEBHOOK-CONFIG-VIOLATION-422': 'pass',
        'WEBHOOK-CONFIG-REQUIRE-HTTPS': 'pass',
        'WEBHOOK-CONFIG-HEADERS': 'pass',
        'WEBHOOK-CONFIG-HEADERS-ENV': 'pass',
        'WEBHOOK-CONFIG-ENV-PREFIX': 'pass',
        'WEBHOOK-CONFIG-DISABLE-WEBHOOKS': 'pass',
      },
    ],
    [
      'require_https',
      () => ({ webhooks: { url: { require_https: true } } }),
      { 'WEBHOOK-CONFIG-REQUIRE-HTTPS': 'pass', 'WEBHOOK-CONFIG-VIOLATION-422': 'pass' },
    ],
    ['http.disable_webhooks', () => ({ http: { disable_webhooks: true } }), { 'WEBHOOK-CONFIG-DISABLE-WEBHOOKS': 'pass' }],
  ];
  for (const [name, document, expected] of cases) {
    test(`${name}: the suites' checks pass`, async () => {
      const port = await freePort();
      const env = { LG_WEBHOOK_APC_TEST: 'from-env' };
      const sim = await Simulator.start({ deploymentConfig: resolveDeploymentConfig(document(port), env), quiet: true });
      try {
        const out = mkdtempSync(join(tmpdir(), 'apc-config-run-'));
        const run = await runCli(
          [
            'run',
            '--target',
            sim.urls['agent-server']!,
            '--out',
            out,
            '--plane',
            'agent-server',
            '--grep',
            '@WEBHOOK-CONFIG',
            '--webhook-receiver-port',
            String(port),
          ],
          env,
        );
        const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as ConformanceReport;
        const verdicts = Object.fromEntries(report.rules.filter((r) => r.id in expected).map((r) => [r.id, r.verdict]));
        expect(verdicts, `${run.stdout}\n${run.stderr}`).toEqual(expected);
      } finally {
        await sim.close();
      }
    });
  }
});
