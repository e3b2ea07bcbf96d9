// The catalogue of deliberately broken behaviours. Each names the rules it breaks: the
// self-test runs the suites against it and expects exactly those to fail.
import type { Mutation } from '../broken-target.ts';
import { catalogue } from '../catalogue.ts';
import { ACCESS_MUTATIONS } from './access.ts';
import { AGENT_ERROR_MUTATIONS } from './agent-errors.ts';
import { AGENT_VERSIONING_MUTATIONS } from './agent-versioning.ts';
import { AUTHENTICATE_MUTATIONS } from './authenticate.ts';
import { ASSISTANT_MUTATIONS } from './assistants.ts';
import { CONTROL_PLANE_MUTATIONS } from './control-plane.ts';
import { CRON_MUTATIONS } from './crons.ts';
import { CRON_BODY_MUTATIONS } from './cron-bodies.ts';
import { DEPLOYMENT_MUTATIONS } from './deployments.ts';
import { ERROR_MUTATIONS } from './errors.ts';
import { GENERATED_MUTATIONS } from './generated.ts';
import { MULTITASK_MUTATIONS } from './multitask.ts';
import { PLATFORM_API_MUTATIONS } from './platform-api.ts';
import { RATE_LIMIT_MUTATIONS, RATE_ROW_MUTATIONS } from './rate-limits.ts';
import { RED_TEAM_AGENT_MUTATIONS } from './red-team-agent.ts';
import { RED_TEAM_PLATFORM_MUTATIONS } from './red-team-platform.ts';
import { REGION_MUTATIONS } from './regions.ts';
import { RUN_MUTATIONS } from './runs.ts';
import { RUN_LIFECYCLE_MUTATIONS } from './runs-lifecycle.ts';
import { RUN_RESULT_MUTATIONS } from './run-results.ts';
import { STREAM_MUTATIONS } from './streams.ts';
import { THREAD_MUTATIONS } from './threads.ts';
import { TRACING_MUTATIONS } from './tracing.ts';
import { UPLOAD_MUTATIONS } from './uploads.ts';
import { THREAD_LIFECYCLE_MUTATIONS } from './thread-lifecycle.ts';
import { VERSIONING_MUTATIONS } from './versioning.ts';
import { WEBHOOK_MUTATIONS } from './webhooks.ts';
import { WEBHOOK_EMISSION_MUTATIONS } from './webhook-emission.ts';
import { WEBHOOK_CONFIG_MUTATIONS } from './webhook-config.ts';

export const MUTATIONS: Record<string, Mutation> = catalogue(
  'mutations',
  THREAD_MUTATIONS,
  RUN_MUTATIONS,
  CRON_MUTATIONS,
  WEBHOOK_MUTATIONS,
  CONTROL_PLANE_MUTATIONS,
  PLATFORM_API_MUTATIONS,
  GENERATED_MUTATIONS,
  ACCESS_MUTATIONS,
  VERSIONING_MUTATIONS,
  DEPLOYMENT_MUTATIONS,
  ERROR_MUTATIONS,
  AUTHENTICATE_MUTATIONS,
  TRACING_MUTATIONS,
  UPLOAD_MUTATIONS,
  REGION_MUTATIONS,
  RATE_LIMIT_MUTATIONS,
  process.env.APC_RATE_MUTATIONS === '1' ? RATE_ROW_MUTATIONS : {},
  ASSISTANT_MUTATIONS,
  RUN_LIFECYCLE_MUTATIONS,
  THREAD_LIFECYCLE_MUTATIONS,
  RUN_RESULT_MUTATIONS,
  WEBHOOK_EMISSION_MUTATIONS,
  MULTITASK_MUTATIONS,
  AGENT_ERROR_MUTATIONS,
  AGENT_VERSIONING_MUTATIONS,
  WEBHOOK_CONFIG_MUTATIONS,
  CRON_BODY_MUTATIONS,
  STREAM_MUTATIONS,
  RED_TEAM_AGENT_MUTATIONS,
  RED_TEAM_PLATFORM_MUTATIONS,
);
