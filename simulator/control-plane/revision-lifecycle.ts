// The statuses a revision moves through on the virtual clock. The spec gives only DEPLOYED
// (§2.3, §3); the statuses and their order are the real control plane's (the
// control plane's OpenAPI document, api.host.langchain.com/openapi.json). The delays are the simulator's choice: a build of about a minute and a half.

import { contract } from '../../specs/contract.ts';
import type { RevisionStatus } from '../../specs/types/control-plane.ts';

// REVISION-STATUS-VALUES: a revision takes only the contract's RevisionStatus values.
export const REVISION_STATUSES = contract().enumOf('control-plane', 'RevisionStatus') as RevisionStatus[];
export type { RevisionStatus };

export const FAILURES = ['CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED'] as const;
export type RevisionFailure = (typeof FAILURES)[number];

/** Statuses a revision never leaves (the CLI's terminal set, langgraph-cli langgraph_cli/deploy.py; REVISION-FAILURE-TERMINAL). */
export const TERMINAL: ReadonlySet<RevisionStatus> = new Set(['DEPLOYED', 'CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED', 'SKIPPED', 'INTERRUPTED']);

/**
 * Each step: the status a revision takes, in ms after its creation. The simulator's path to DEPLOYED
 * (REVISION-TRANSITIONS), which every revision reaches unless told to fail (REVISION-POLL-DEPLOYED).
 */
export const LIFECYCLE: { status: RevisionStatus; at: number }[] = [
  { status: 'CREATING', at: 0 },
  { status: 'QUEUED', at: 2_000 },
  { status: 'AWAITING_BUILD', at: 5_000 },
  { status: 'BUILDING', at: 10_000 },
  { status: 'AWAITING_DEPLOY', at: 70_000 },
  { status: 'DEPLOYING', at: 75_000 },
  { status: 'DEPLOYED', at: 90_000 },
];

/** Virtual time from creation to DEPLOYED. */
export const TIME_TO_DEPLOY = LIFECYCLE[LIFECYCLE.length - 1].at;

/** A failing revision takes its failure in place of the step where that stage ends. */
const FAILS_INSTEAD_OF: Record<RevisionFailure, RevisionStatus> = {
  CREATE_FAILED: 'QUEUED',
  BUILD_FAILED: 'AWAITING_DEPLOY',
  DEPLOY_FAILED: 'DEPLOYED',
};

/** The steps of a revision from now on: the normal path, or one that ends in `failure` and never reaches DEPLOYED (REVISION-FAILURE-TERMINAL). */
export function stepsOf(failure?: RevisionFailure): { status: RevisionStatus; at: number }[] {
  if (!failure) return LIFECYCLE;
  const end = LIFECYCLE.findIndex((s) => s.status === FAILS_INSTEAD_OF[failure]);
  return [...LIFECYCLE.slice(0, end), { status: failure, at: LIFECYCLE[end].at }];
}
