#!/bin/sh
# Conformance in any CI: installs the tool, runs the suites into a report folder, shows the summary
# where the CI shows one, and exits as the run did, so the job passes or fails with it.
#
#   APC_PACKAGE  what to install: a packed tarball (a path or a URL), a git URL, or, once it is
#                published, agent-platform-conformance. Unset: the project lists the tool in its own
#                devDependencies and has installed it (npm ci).
#   APC_OUT      the report folder (default: conformance-report). Keep it as the job's artifact,
#                whatever the exit code: report.html, report.json, junit.xml, summary.md, exchanges.har.
#
# Its arguments go to `agent-platform-conformance run`, e.g.  sh conformance.sh --target target.yaml --profile safe
# Exit code: the run's: 0 passed, 1 a MUST rule failed, 2 a usage or target error, 3 --max-duration.
set -u
out="${APC_OUT:-conformance-report}"
if [ -n "${APC_PACKAGE:-}" ]; then
  npm install --no-save --no-audit --no-fund "$APC_PACKAGE" || exit 2
fi
# On GitHub Actions each failing rule is also an annotation on the run's page.
npx --no agent-platform-conformance run --out "$out" --quiet ${GITHUB_ACTIONS:+--github-annotations} "$@"
code=$?
# GitHub Actions shows this file on the job's page; on another CI, publish "$out/summary.md" or
# "$out/junit.xml" as it publishes test results.
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$out/summary.md" ]; then
  cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"
fi
exit "$code"
