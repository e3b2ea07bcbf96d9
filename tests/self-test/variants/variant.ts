// A conformant variant: a target that differs from the simulator only where the spec leaves a
// choice open. The mirror of a mutation: a mutation must fail exactly the rules it breaks, a
// variant must fail no MUST rule and leave none unjudged for a reason it did not declare (principle
// 7: red means non-conformant). It is built as a mutation that breaks nothing, behind the same front.
import type { Plane } from '../../../specs/contract.ts';
import type { SpecMode } from '../../../specs/types/simulator-admin.ts';
import type { Mutation } from '../broken-target.ts';

export interface Variant extends Omit<Mutation, 'breaks' | 'description' | 'notJudged'> {
  /** What the target does differently. */
  description: string;
  /** Where the spec leaves it open: the section and its words. */
  allowedBy: string;
  /**
   * What the variant's target config declares, as a target that differs so would (not_shown_operations,
   * integration_ids, oauth_providers); `oauth_providers: undefined` leaves out the simulator's.
   */
  declares?: { not_shown_operations?: Partial<Record<Plane, string[]>>; integration_ids?: string[]; oauth_providers?: string[] };
  /**
   * Options the target's simulator starts with, where the variant is one of the simulator's own
   * modes (spec-only) rather than a front's rewrite: such a variant gets a run of its own.
   */
  simulator?: { spec?: SpecMode };
  /**
   * Why the variant leaves MUST rules unjudged for a reason its config does not declare (a read the
   * spec does not show that it refuses, undeclared): the run may then exit 1 for them, never fail one.
   */
  leavesUnjudged?: string;
  /**
   * Rules the variant's run must pass: their tests judge them on what the spec shows, which the
   * variant still answers as the simulator does, so neither a skip (even one its config declares)
   * nor a failure of any level is due to what the variant changes.
   */
  passes?: string[];
}

/**
 * What one variant did in its run: it passes when it failed no MUST rule, left no rule in error nor,
 * undeclared, unjudged, and passed every rule of its `passes`.
 */
export interface VariantOutcome {
  name: string;
  passed: boolean;
  /** MUST rules (not interpretations) that failed in its tests. */
  mustFailed: string[];
  /** Rules whose tests could not be judged (error): a skip that may hide a finding, a test that did not end. */
  errors: string[];
  /** MUST rules its tests left unjudged for a reason the target did not declare. */
  notJudged: string[];
  /** Rules of its `passes` that its run did not pass. */
  notPassed: string[];
  /** SHOULD rules that failed in its tests: allowed (a variant may differ from the service), counted for the note. */
  shouldFailed: string[];
}

/** The variant as the broken targets' front applies it: a mutation that breaks no rule. */
export function asMutation(variant: Variant): Mutation {
  const { allowedBy: _, declares: __, leavesUnjudged: ___, passes: ____, simulator: _____, ...mutation } = variant;
  return { ...mutation, breaks: [] };
}
