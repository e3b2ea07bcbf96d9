// The recording as a HAR 1.2 file that other tools read: it matches the HAR 1.2 JSON Schema
// (har-schema, the one har-validator checks with: absolute URLs among other things), and
// Playwright's routeFromHAR serves a real Chromium page from it with the target gone.
import { expect, test } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { launchChromium } from '../chromium.ts';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Simulator } from '../../simulator/simulator.ts';
import { toHar } from '../../harness/proxy/har.ts';
import { RecordingProxy } from '../../harness/proxy/recording-proxy.ts';
import { TEST_HEADER } from '../../specs/evidence-protocol.ts';

const require = createRequire(import.meta.url);

/** har-schema's draft-06 schemas, compiled once. */
function harValidator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as object);
  // ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
  (addFormatsModule as unknown as (ajv: Ajv) => void)(ajv);
  const schemas = require('har-schema') as Record<string, { $id: string }>;
  for (const schema of Object.values(schemas)) ajv.addSchema(schema);
  return ajv.getSchema('har.json#')!;
}

test('a recording is valid HAR 1.2, with absolute URLs, and Playwright replays it in Chromium', async () => {
  const sim = await Simulator.start({ quiet: true });
  const proxy = new RecordingProxy({ plane: 'agent-server', target: sim.urls['agent-server']! });
  const url = await proxy.start();
  const created = (await (
    await fetch(`${url}/threads`, { method: 'POST', headers: { 'content-type': 'application/json', [TEST_HEADER]: 't' }, body: '{"metadata":{"k":"v"}}' })
  ).json()) as { thread_id: string };
  await fetch(`${url}/threads/${created.thread_id}?api_key=secret`);
  await proxy.close();
  await sim.close();

  const har = toHar(proxy.exchanges);
  const validate = harValidator();
  expect(validate(har), JSON.stringify(validate.errors, null, 2)).toBe(true);
  for (const entry of har.log.entries) expect(entry.request.url.startsWith(`${sim.urls['agent-server']}/`), entry.request.url).toBe(true);
  expect(har.log.entries[1].request.url).toContain('api_key=REDACTED');

  const file = join(mkdtempSync(join(tmpdir(), 'apc-har-')), 'exchanges.har');
  writeFileSync(file, JSON.stringify(har));
  const browser = await launchChromium();
  try {
    const context = await browser.newContext();
    // notFound 'abort': nothing may reach the network (the simulator is stopped anyway).
    await context.routeFromHAR(file, { notFound: 'abort' });
    const page = await context.newPage();
    const response = await page.goto(har.log.entries[1].request.url);
    expect(response?.status()).toBe(200);
    expect(JSON.parse((await page.textContent('body')) ?? '')).toMatchObject({ thread_id: created.thread_id, metadata: { k: 'v' } });
  } finally {
    await browser.close();
  }
});
