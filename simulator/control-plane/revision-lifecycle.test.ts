// The steps a revision takes on the virtual clock (the control plane's OpenAPI document, api.host.langchain.com/openapi.json): the normal path to
// DEPLOYED and the three failing paths. The deployment store schedules exactly these steps, so a
// wrong order or a failure that is not terminal would show in every control plane suite.
import { expect, test } from '@playwright/test';
import { FAILURES, LIFECYCLE, REVISION_STATUSES, stepsOf, TERMINAL, TIME_TO_DEPLOY, type RevisionFailure } from './revision-lifecycle.ts';

const statuses = (steps: { status: string }[]) => steps.map((s) => s.status);

test('a revision goes from CREATING to DEPLOYED in order, in a minute and a half', () => {
  // REVISION-POLL-DEPLOYED
  const steps = stepsOf();
  expect(statuses(steps)).toEqual(['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']);
  expect(steps[0].at, 'a revision is CREATING as it is created').toBe(0);
  for (let i = 1; i < steps.length; i++) expect(steps[i].at, steps[i].status).toBeGreaterThan(steps[i - 1].at);
  expect(TIME_TO_DEPLOY).toBe(90_000);
  expect(steps.at(-1)).toEqual({ status: 'DEPLOYED', at: TIME_TO_DEPLOY });
});

test('a failing revision takes its failure in place of the step where that stage ends, and never reaches DEPLOYED', () => {
  // REVISION-FAILURE-TERMINAL
  const expected: Record<RevisionFailure, { status: string; at: number }[]> = {
    CREATE_FAILED: [
      { status: 'CREATING', at: 0 },
      { status: 'CREATE_FAILED', at: 2_000 },
    ],
    BUILD_FAILED: [
      { status: 'CREATING', at: 0 },
      { status: 'QUEUED', at: 2_000 },
      { status: 'AWAITING_BUILD', at: 5_000 },
      { status: 'BUILDING', at: 10_000 },
      { status: 'BUILD_FAILED', at: 70_000 },
    ],
    DEPLOY_FAILED: [...LIFECYCLE.slice(0, -1), { status: 'DEPLOY_FAILED', at: 90_000 }],
  };
  for (const failure of FAILURES) {
    expect(stepsOf(failure), failure).toEqual(expected[failure]);
    expect(statuses(stepsOf(failure)), failure).not.toContain('DEPLOYED');
  }
  expect(statuses(stepsOf()), 'asking for a failure leaves the normal path as it was').toContain('DEPLOYED');
  expect(stepsOf()).toHaveLength(7);
});

test('every status a revision takes is a documented one, and only the last step of a path is terminal', () => {
  // REVISION-STATUS-VALUES, REVISION-FAILURE-TERMINAL
  for (const path of [undefined, ...FAILURES]) {
    const steps = statuses(stepsOf(path));
    for (const status of steps) expect(REVISION_STATUSES, status).toContain(status);
    expect(TERMINAL.has(steps.at(-1) as never), `${path ?? 'normal'} path ends terminal`).toBe(true);
    expect(
      steps.slice(0, -1).filter((s) => TERMINAL.has(s as never)),
      `${path ?? 'normal'} path stops early`,
    ).toEqual([]);
  }
  expect([...TERMINAL].filter((s) => !REVISION_STATUSES.includes(s))).toEqual([]);
  expect(TERMINAL.has('UNKNOWN'), 'UNKNOWN may still change').toBe(false);
});
