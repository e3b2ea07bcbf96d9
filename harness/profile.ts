// What a run may create on its target (`run --profile`). A real service holds real data and
// bills for deployments, so a run against one creates only what its profile allows: the
// suites' client asks here before each request that would create something (the operations
// say what they create, `x-creates` in specs/openapi), and a test that needs more is skipped,
// saying which profile would run it.
import type { SideEffect } from '../specs/contract.ts';

export const PROFILES = ['read-only', 'safe', 'full'] as const;
export type Profile = (typeof PROFILES)[number];

/** Besides what operations create: traffic that spends the target's real rate-limit quota. */
export type Effect = SideEffect | 'rate-limit-probe';

/**
 * read-only creates nothing; safe creates what a conversation or a trace creates, but no
 * deployment (nor revision), no OAuth flow and no rate-limit probe; full creates anything.
 */
const FORBIDDEN: Record<Profile, (effect: Effect) => boolean> = {
  'read-only': () => true,
  safe: (effect) => effect === 'deployment' || effect === 'revision' || effect === 'oauth-flow' || effect === 'rate-limit-probe',
  full: () => false,
};

export function allows(profile: Profile, effect: Effect): boolean {
  return !FORBIDDEN[profile](effect);
}

/**
 * The profile of a run that names none: everything on a simulator (one the harness started or
 * found, or a config naming a simulator's capabilities), `safe` on any other target.
 */
export function defaultProfile(target: { kind: string; capabilities: string[] }): Profile {
  return target.kind === 'embedded-simulator' || target.kind === 'simulator' || target.capabilities.length > 0 ? 'full' : 'safe';
}

/** The smallest profile that allows an effect, for the skip reason. */
export function profileFor(effect: Effect): Profile {
  return PROFILES.find((p) => allows(p, effect))!;
}
