// Debian's Chromium, for the tests that check a page in a real browser (Playwright's own browser
// download does not work here). Where it is missing the test is skipped, except in CI, where
// .ci/run installs it: there a missing browser fails rather than passing unseen.
import { chromium, test, type Browser, type Page } from '@playwright/test';
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

/**
 * What breaks a page that must stand alone (a report or a site opened from the file system, a CI
 * artifact): its script errors, and any request beyond the page's own file and in-page data.
 * Answers the list, filled as `page` meets them; a test expects it empty at its end.
 */
export function selfContainedFaults(page: Page): string[] {
  const faults: string[] = [];
  page.on('pageerror', (e) => faults.push(e.message));
  page.on('request', (r) => {
    if (!/^(file|data|blob):/.test(r.url())) faults.push(`fetched ${r.url()}`);
  });
  return faults;
}
