// Keeps secrets out of what the tests say. A failing assertion may quote a target's answer that
// reflects an API key, and an observation may too; the proxies redact the exchanges, this redacts
// the words. It is listed first among the reporters and rewrites each result in place, so that
// Playwright's progress reporter and the conformance report both get the redacted text. The
// worker has already written text attachments (Playwright's error-context.md repeats the error)
// into the report folder: those files are rewritten too. Every text goes through `redacted`.
import { readFileSync, writeFileSync } from 'node:fs';
import type { Reporter, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { type Redaction, runRedaction } from '../harness/proxy/redact.ts';
import { stripVTControlCharacters } from 'node:util';
import { attachedEvidence, EVIDENCE_ATTACHMENT, type TestEvidence } from '../harness/test-evidence.ts';

export default class RedactingReporter implements Reporter {
  printsToStdio(): boolean {
    return false;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const redaction = runRedaction();
    if (!redaction) return;
    for (const error of [...result.errors, ...(result.error ? [result.error] : [])]) redactError(error, redaction);
    for (const annotation of [...test.annotations, ...result.annotations]) {
      if (annotation.description) annotation.description = redacted(annotation.description, redaction);
    }
    for (const attachment of result.attachments) {
      if (attachment.path && attachment.contentType.startsWith('text/')) redactFile(attachment.path, redaction);
    }
    const evidence = attachedEvidence(result.attachments);
    if (evidence) redactEvidence(result.attachments, evidence, redaction);
  }

  onError(error: TestError): void {
    const redaction = runRedaction();
    if (redaction) redactError(error, redaction);
  }
}

function redactError(error: TestError, redaction: Redaction): void {
  for (const key of ['message', 'stack', 'value', 'snippet'] as const) {
    const text = error[key];
    if (text) error[key] = redacted(text, redaction);
  }
  if (error.cause) redactError(error.cause, redaction);
}

/** The words of a test's evidence (its exchanges are redacted already, by the proxies). */
function redactEvidence(attachments: TestResult['attachments'], evidence: TestEvidence, redaction: Redaction): void {
  for (const failure of evidence.failures) failure.message = redacted(failure.message, redaction);
  for (const entry of evidence.observations) entry.observation = redacted(entry.observation, redaction);
  for (const entry of evidence.notJudged) entry.reason = redacted(entry.reason, redaction);
  evidence.sentAgain = evidence.sentAgain.map((line) => redacted(line, redaction));
  const at = attachments.findIndex((a) => a.name === EVIDENCE_ATTACHMENT);
  attachments[at] = { ...attachments[at], body: Buffer.from(JSON.stringify(evidence)) };
}

function redactFile(path: string, redaction: Redaction): void {
  const text = readFileSync(path, 'utf8');
  const out = redacted(text, redaction);
  if (out !== text) writeFileSync(path, out);
}

/**
 * A text with the run's secrets redacted. Playwright colours an assertion's message, and marks the
 * characters a comparison found different inside a string: colour codes that cut a secret in two
 * hide it from the search for its value and its name, so the text is searched without them. It
 * keeps them where nothing was redacted.
 */
function redacted(text: string, redaction: Redaction): string {
  const plain = stripVTControlCharacters(text);
  const out = redaction.text(plain);
  return out === plain ? text : out;
}
