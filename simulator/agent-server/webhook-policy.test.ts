// The webhook URL policy (§6 webhooks.url): each setting alone, then over HTTP, where a
// refused URL answers 422 and creates neither a run nor a cron.
import { expect, test } from '@playwright/test';
import { resolveDeploymentConfig } from '../deployment-config.ts';
import { ApiError } from '../http/errors.ts';
import { Simulator } from '../simulator.ts';
import { hostMatches, type UrlPolicy } from '../../specs/url-policy.ts';
import { checkWebhookUrl, DEFAULT_MAX_URL_LENGTH } from './webhook-policy.ts';

function refusal(url: string, policy: UrlPolicy | undefined): string | undefined {
  try {
    checkWebhookUrl(url, policy);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(422);
    return (error as ApiError).message;
  }
}

test('without a webhooks.url section any http(s) URL and any path is accepted', () => {
  for (const url of ['http://127.0.0.1:8123/hook', 'https://example.com:9443/x?token=1', '/threads', `https://a.example/${'x'.repeat(10_000)}`]) {
    expect(refusal(url, undefined), url).toBeUndefined();
  }
});

test('a URL that cannot be delivered is refused with or without a policy', () => {
  for (const url of ['ftp://example.com/x', 'not a url', '//example.com/x', 'mailto:a@example.com']) {
    expect(refusal(url, undefined), url).toMatch(/Invalid webhook URL/);
  }
});

test('allowed_domains allows exact hosts and, with *., subdomains but not the domain itself', () => {
  const policy: UrlPolicy = { allowed_domains: ['hooks.example.com', '*.example.org'], allowed_ports: [443] };
  expect(refusal('https://hooks.example.com/x', policy)).toBeUndefined();
  expect(refusal('https://HOOKS.example.com/x', policy)).toBeUndefined();
  expect(refusal('https://a.b.example.org/x', policy)).toBeUndefined();
  expect(refusal('https://example.org/x', policy)).toMatch(/Webhook domain not allowed: 'example.org'/);
  expect(refusal('https://other.example.com/x', policy)).toMatch(/allowed_domains/);
  expect(refusal('https://evilexample.org/x', policy)).toMatch(/domain not allowed/);
  expect(hostMatches('x.example.org', '*.example.org')).toBe(true);
});

test('require_https refuses http:// and accepts https://', () => {
  const policy: UrlPolicy = { require_https: true, allowed_ports: [80, 443] };
  expect(refusal('http://example.com/x', policy)).toMatch(/Webhook must use https.*require_https/);
  expect(refusal('https://example.com/x', policy)).toBeUndefined();
  expect(refusal('http://example.com/x', { allowed_ports: [80] })).toBeUndefined();
});

test('allowed_ports checks the explicit port, or 443 for https and 80 for http when none is written', () => {
  const policy: UrlPolicy = { allowed_ports: [443, 8443] };
  expect(refusal('https://example.com/x', policy)).toBeUndefined();
  expect(refusal('https://example.com:8443/x', policy)).toBeUndefined();
  expect(refusal('http://example.com/x', policy)).toMatch(/Webhook port 80 not allowed/);
  expect(refusal('https://example.com:9000/x', policy)).toMatch(/port 9000 not allowed.*443, 8443/);
});

test('with a webhooks.url section but no allowed_ports, only the scheme default port is allowed', () => {
  expect(refusal('https://example.com/x', {})).toBeUndefined();
  expect(refusal('http://example.com/x', {})).toBeUndefined();
  expect(refusal('https://example.com:8443/x', {})).toMatch(/port 8443 not allowed/);
  expect(refusal('http://example.com:443/x', {})).toMatch(/port 443 not allowed: webhooks.url.allowed_ports allows 80/);
});

test('disable_loopback refuses relative URLs only', () => {
  expect(refusal('/threads', { disable_loopback: true })).toMatch(/Loopback webhooks are disabled/);
  expect(refusal('/threads', { disable_loopback: false })).toBeUndefined();
  expect(refusal('http://localhost/x', { disable_loopback: true })).toBeUndefined();
});

test('max_url_length counts characters; the default with a webhooks.url section is 4096', () => {
  const url = (length: number) => `https://e.com/${'x'.repeat(length - 'https://e.com/'.length)}`;
  expect(refusal(url(100), { max_url_length: 100 })).toBeUndefined();
  expect(refusal(url(101), { max_url_length: 100 })).toMatch(/too long: 101 characters, more than the 100/);
  expect(refusal(url(DEFAULT_MAX_URL_LENGTH), {})).toBeUndefined();
  expect(refusal(url(DEFAULT_MAX_URL_LENGTH + 1), {})).toMatch(/too long/);
  expect(refusal(`/${'x'.repeat(200)}`, { max_url_length: 100 })).toMatch(/too long/);
});

test('the first broken setting in the reference order is the one named', () => {
  const policy: UrlPolicy = { require_https: true, allowed_domains: ['a.example'], max_url_length: 30 };
  expect(refusal('http://b.example:81/a-rather-long-path', policy)).toMatch(/too long/);
  expect(refusal('http://b.example:81/', policy)).toMatch(/https/);
  expect(refusal('https://b.example:81/', policy)).toMatch(/port/);
  expect(refusal('https://b.example/', policy)).toMatch(/domain/);
});

test.describe('over HTTP', () => {
  const config = resolveDeploymentConfig({ webhooks: { url: { allowed_domains: ['hooks.example.com'] } } }, {});

  test('a refused webhook answers 422 with a detail naming the setting, and creates no run or cron', async () => {
    const sim = await Simulator.start({ deploymentConfig: config, quiet: true });
    try {
      const base = sim.urls['agent-server']!;
      const post = (path: string, body: unknown) =>
        fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const thread = (await (await post('/threads', {})).json()) as { thread_id: string };
      const webhook = 'https://elsewhere.example.net/hook';
      const paths = [
        `/threads/${thread.thread_id}/runs`,
        `/threads/${thread.thread_id}/runs/wait`,
        `/threads/${thread.thread_id}/runs/stream`,
        '/runs/wait',
        '/runs/stream',
      ];
      for (const path of paths) {
        const res = await post(path, { assistant_id: 'agent', webhook });
        expect(res.status, path).toBe(422);
        expect(((await res.json()) as { detail: string }).detail, path).toMatch(/Webhook domain not allowed: 'elsewhere.example.net'/);
      }
      for (const path of [`/threads/${thread.thread_id}/runs/crons`, '/runs/crons']) {
        const res = await post(path, { assistant_id: 'agent', schedule: '* * * * *', webhook });
        expect(res.status, path).toBe(422);
      }
      expect(sim.agentServer.runs.list(thread.thread_id, {})).toEqual([]);
      expect(sim.agentServer.crons.search({})).toEqual([]);
      expect(sim.agentServer.threads.search({}).map((t) => t.thread_id)).toEqual([thread.thread_id]);
      const allowed = await post(`/threads/${thread.thread_id}/runs`, {
        assistant_id: 'agent',
        webhook: 'https://hooks.example.com/x',
        input: { delay_ms: 1000 },
      });
      expect(allowed.status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});
