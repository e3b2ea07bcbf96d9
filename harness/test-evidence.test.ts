// What a test says reaches its record and Playwright's result redacted: its errors (as Playwright
// coloured them), its skip reasons and its record's words, redacted where the record is written.
import { expect, test, type TestInfo } from '@playwright/test';
import { Redaction } from './proxy/redact.ts';
import { emptyEvidence, redactWords } from './test-evidence.ts';

/** The message of the assertion error Playwright's expect throws, colour codes and all. */
function assertionMessage(assert: () => void): string {
  try {
    assert();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the assertion passed');
}

test("a failed assertion quoting the target's API key and a `redact` name's value shows neither, however Playwright coloured it", async () => {
  // Neither has the look of a key (lsv2_, bearer): each is redacted by its value alone.
  const apiKey = 'k9Q7Wz9XkPq2LmN4vB8rT6yH3jR5tY';
  const tenant = 'tenantM3pL8sQ2vX7cN4bR9wK1';
  const redaction = new Redaction({ names: ['X-Tenant-Auth'], secrets: [apiKey] });
  // The proxy met the tenant's value under the name the target config adds (`redact`).
  expect(redaction.header('X-Tenant-Auth', tenant)).toBe('REDACTED');
  // Playwright marks the characters a string comparison found different with colour codes, which
  // then cut each secret in two: the search for its value must still find it.
  const keyMessage = assertionMessage(() => expect(`invalid key ${apiKey}`).toBe(`invalid key ${apiKey.slice(0, 20)}AAAAAAAAAA`));
  const tenantMessage = assertionMessage(() => expect(`x-tenant-auth=${tenant}`).toBe(`x-tenant-auth=${tenant.slice(0, 12)}`));
  expect(keyMessage).toContain(`${apiKey.slice(0, 20)}\u001b[7m`);

  const info = {
    errors: [{ message: keyMessage, stack: keyMessage, cause: { message: tenantMessage } }],
    annotations: [{ type: 'skip', description: `precondition failed: answered ${apiKey}` }, { type: 'issue' }],
  } as unknown as TestInfo;
  const evidence = emptyEvidence();
  evidence.failures.push({ rule: 'THREAD-GET', message: keyMessage });
  evidence.observations.push({ rule: 'THREAD-X', observation: `x-tenant-auth=${tenant}` });
  evidence.notJudged.push({ rule: 'THREAD-Y', reason: `no ${apiKey}`, explainedBy: [] });
  evidence.sentAgain.push(`GET /threads?key=${apiKey} answered 429`);
  let asked: string[] = [];
  await redactWords(info, evidence, async (texts) => {
    asked = texts;
    return texts.map((text) => redaction.words(text));
  });

  expect(asked, 'one request for every word').toHaveLength(8);
  expect(info.errors[0].message, 'the assertion is still told').toContain('Received: "invalid key REDACTED"');
  expect(info.errors[0].cause?.message).toContain('Received: "x-tenant-auth=REDACTED"');
  const said = JSON.stringify({ errors: info.errors, annotations: info.annotations, evidence });
  // Neither secret shows, nor its tail, which the expected text does not share.
  for (const leak of [apiKey.slice(18), tenant.slice(10), apiKey, tenant]) expect(said).not.toContain(leak);
});

test('a test that said nothing in words asks for no redaction', async () => {
  const info = { errors: [], annotations: [] } as unknown as TestInfo;
  let asked = false;
  await redactWords(info, emptyEvidence(), async (texts) => {
    asked = true;
    return texts;
  });
  expect(asked).toBe(false);
});
