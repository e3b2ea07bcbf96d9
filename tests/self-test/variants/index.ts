// The catalogue of conformant variants: targets that differ from the simulator only where the
// spec leaves a choice open. Each must fail no MUST rule (conformant-variants.test.ts).
import { catalogue } from '../catalogue.ts';
import { ACCESS_VARIANTS } from './access.ts';
import { AGENT_SERVER_EVENT_VARIANTS } from './agent-server-events.ts';
import { AGENT_SERVER_RUN_READ_VARIANTS } from './agent-server-run-reads.ts';
import { AGENT_SERVER_RUN_VARIANTS } from './agent-server-runs.ts';
import { CONTROL_PLANE_VARIANTS } from './control-plane.ts';
import { GENERATED_VARIANTS } from './generated.ts';
import { OAUTH_PROVIDER_VARIANTS } from './oauth-providers.ts';
import { OPEN_FORM_VARIANTS } from './open-forms.ts';
import { PLATFORM_API_VARIANTS } from './platform-api.ts';
import type { Variant } from './variant.ts';

export const VARIANTS: Record<string, Variant> = catalogue(
  'variants',
  GENERATED_VARIANTS,
  ACCESS_VARIANTS,
  AGENT_SERVER_RUN_VARIANTS,
  AGENT_SERVER_RUN_READ_VARIANTS,
  AGENT_SERVER_EVENT_VARIANTS,
  CONTROL_PLANE_VARIANTS,
  PLATFORM_API_VARIANTS,
  OPEN_FORM_VARIANTS,
  OAUTH_PROVIDER_VARIANTS,
);
