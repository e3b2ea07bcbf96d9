// The pace of a run against a simulator on the real clock. At a low time scale the run waits as
// it would on a hosted service (a revision builds in 90 s, a cron fires once a minute, webhook
// retries come seconds apart): a run of every plane at ×1 took 40 minutes. A run that resets the
// simulator anyway (capability reset) restarts its clock at RUN_TIME_SCALE; one that cannot says at
// once what the wait costs and how to avoid it. A simulator faster than that is left as it is.
import type { Target } from './target.ts';

/**
 * The time scale a run resets a slower real clock to: the fastest at which a rate-limit row's
 * requests still share one 10 s window on a busy 2-core machine. The real-target test runs every
 * plane at it (docs/reference.md, "Proven on a target without capabilities").
 */
export const RUN_TIME_SCALE = 5;

interface Pace {
  /** The time scale the run's reset sets, when it sets one. */
  resetTo?: number;
  /** What the console says before the first test: the cost of the clock, and what the run does or the user can do. */
  notice?: string;
}

/** How a run keeps pace with `target`'s clock: nothing to do unless it is a simulator's real clock slower than RUN_TIME_SCALE. */
export function paceOf(target: Pick<Target, 'name' | 'kind' | 'capabilities' | 'adminUrl' | 'simulatorClock'>): Pace {
  const clock = target.simulatorClock;
  if (target.kind === 'embedded-simulator' || clock?.kind !== 'real') return {};
  const scale = clock.time_scale ?? 1;
  if (scale >= RUN_TIME_SCALE) return {};
  const cost =
    `${target.name} runs on the real clock ×${scale}, so the run waits as on a hosted service ` +
    `(a revision builds in ${Math.round(90 / scale)} s, a cron fires every ${Math.round(60 / scale)} s; every plane took 40 minutes at ×1)`;
  if (target.capabilities.includes('reset') && target.adminUrl) {
    return {
      resetTo: RUN_TIME_SCALE,
      notice:
        `${cost}: the run resets it at ×${RUN_TIME_SCALE} (capability reset), and it stays at ×${RUN_TIME_SCALE} after. ` +
        `Start it with \`simulate --clock virtual\` for a run that moves the clock rather than waits (every plane in under a minute).`,
    };
  }
  return {
    notice: `${cost}. Start it with \`simulate --time-scale ${RUN_TIME_SCALE}\` (and \`time_scale: ${RUN_TIME_SCALE}\` in a target config), or give the run the capability reset, for a run ${RUN_TIME_SCALE} times faster.`,
  };
}
