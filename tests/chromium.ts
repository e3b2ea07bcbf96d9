// Debian's Chromium, for the tests that check a page in a real browser (Playwright's own browser
// download does not work here). Where it is missing the test is skipped, except in CI, where
// .ci/run installs it: there a missing browser fails rather than passing unseen.
import { chromium, test, type Browser } from '@playwright/test';
import { existsSync } from 'node:fs';

const EXECUTABLE = '/usr/bin/chromium';

/** Debian's Chromium, headless, none of its own traffic leaving the machine; skips the calling test where it is not installed. */
export function launchChromium(): Promise<Browser> {
  test.skip(!existsSync(EXECUTABLE) && !process.env.CI, 'Debian chromium is not installed (apt-get install chromium); CI installs it');
  return chromium.launch({
    executablePath: EXECUTABLE,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}
