// Workspaces and the credentials that reach them (spec §5). A credential is linked to one or
// more workspaces; `x-tenant-id` selects one of them, and without it the credential's default
// workspace applies. An org-scoped key has no default and must name its workspace
// (the langsmith SDK, python/langsmith/client.py). Every workspace has a home region, the one where its account signed
// up (spec §1: its data is stored there); a credential is known in that region only. Plain
// state, no HTTP.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { CredentialRole, Credentials } from '../../specs/types/simulator-admin.ts';
import { ApiError } from '../http/errors.ts';

/** The platform's regions (spec §1). */
export type Region = 'us' | 'eu';

export interface Workspace {
  id: string;
  name: string;
  /** Where the workspace's account signed up: its data is stored there (spec §1). */
  region: Region;
}

export type Scheme = 'api-key' | 'bearer';

interface Credential {
  secret: string;
  scheme: Scheme;
  role: CredentialRole;
  workspaces: string[];
  defaultWorkspace?: string;
  /** The home region of its workspaces, the only one that knows it. */
  region: Region;
}

/**
 * What /__sim/info publishes (Credentials of specs/openapi/simulator-admin.yaml), so suites can
 * authenticate against the simulator; a target config names the same (harness/fixtures.ts),
 * without the regions, which only the simulator tells.
 */
type SimulatorCredentials = Credentials;

/** The credentials a request presented; the header names are case-insensitive (node lowercases them). */
export interface Presented {
  apiKey?: string;
  bearer?: string;
  tenantId?: string;
}

interface FixtureCredential {
  role: CredentialRole;
  workspaces: string[];
  default_workspace?: string;
}

interface Fixture {
  organization: { id: string; name: string };
  workspaces: (Omit<Workspace, 'region'> & { region?: Region })[];
  api_keys: (FixtureCredential & { key: string })[];
  bearer_tokens: (FixtureCredential & { token: string })[];
}

const FIXTURE = new URL('../../fixtures/platform/workspaces.yaml', import.meta.url);
let parsedFixture: Fixture | undefined;

export class WorkspaceDirectory {
  private readonly byId: Map<string, Workspace>;
  private readonly bySecret: Map<string, Credential>;

  constructor(private readonly fixture: Fixture) {
    this.byId = new Map(fixture.workspaces.map((w) => [w.id, { ...w, region: w.region ?? 'us' }]));
    const idOf = (name: string) => {
      const workspace = fixture.workspaces.find((w) => w.name === name);
      if (!workspace) throw new Error(`[simulator] fixture credential names unknown workspace '${name}'`);
      return workspace.id;
    };
    const credential = (secret: string, scheme: Scheme, c: FixtureCredential): [string, Credential] => {
      const workspaces = c.workspaces.map(idOf);
      const regions = new Set(workspaces.map((id) => this.byId.get(id)!.region));
      // An account signs up in one region: a credential cannot reach workspaces of both.
      if (regions.size !== 1) throw new Error(`[simulator] fixture credential ${secret} reaches workspaces of several regions`);
      const defaultWorkspace = c.default_workspace && idOf(c.default_workspace);
      return [secret, { secret, scheme, role: c.role, workspaces, defaultWorkspace, region: [...regions][0] }];
    };
    this.bySecret = new Map([
      ...fixture.api_keys.map((k) => credential(k.key, 'api-key', k)),
      ...fixture.bearer_tokens.map((t) => credential(t.token, 'bearer', t)),
    ]);
  }

  /** The fixture's directory; the file is parsed once per process (each partition of a simulator makes one). */
  static fromFixture(): WorkspaceDirectory {
    parsedFixture ??= parseYaml(readFileSync(FIXTURE, 'utf8')) as Fixture;
    return new WorkspaceDirectory(parsedFixture);
  }

  get workspaces(): Workspace[] {
    return [...this.byId.values()];
  }

  /**
   * The workspace a request acts in. Missing or unknown credentials answer 401, and so does a
   * credential of another region than `region` (the platform API of a region knows only the
   * accounts that signed up there, spec §1; REGION-HOME-KEY-ONLY); a workspace the credential is
   * not linked to, or an org-scoped key naming none, answers 403 (the simulator's statuses:
   * ERROR-CREDENTIALS-STATUS-CP, ERROR-CREDENTIALS-STATUS-PLATFORM). Resolved before the handler
   * runs, so a refused request changes nothing (AUTH-CP-MISSING-CREDENTIALS, AUTH-PLATFORM-MISSING-CREDENTIALS).
   */
  resolve(presented: Presented, accepted: Scheme[], region?: Region): { workspace: Workspace; scheme: Scheme } {
    const scheme: Scheme | undefined = presented.apiKey ? 'api-key' : presented.bearer && accepted.includes('bearer') ? 'bearer' : undefined;
    if (!scheme) {
      const how = accepted.includes('bearer') ? 'the X-Api-Key header or Authorization: Bearer <token>' : 'the X-Api-Key header';
      const hint = presented.bearer ? ' (bearer authentication is accepted on the repository listing only, spec §5)' : '';
      throw new ApiError(401, `Missing credentials: send an API key in ${how}${hint}`);
    }
    const secret = scheme === 'api-key' ? presented.apiKey! : presented.bearer!;
    const credential = this.bySecret.get(secret);
    if (!credential || credential.scheme !== scheme) {
      throw new ApiError(401, scheme === 'api-key' ? 'Invalid API key' : 'Invalid bearer token');
    }
    if (region && credential.region !== region) {
      const home = credential.region.toUpperCase();
      throw new ApiError(
        401,
        `Invalid API key for the ${region.toUpperCase()} region: its account signed up in the ${home} region, where its data is stored (spec §1)`,
      );
    }
    // x-tenant-id selects one of the credential's workspaces (AUTH-CP-TENANT-ID, AUTH-PLATFORM-TENANT-ID, AUTH-CP-TENANT-HEADER).
    const tenant = presented.tenantId?.trim().toLowerCase();
    if (tenant) {
      if (!credential.workspaces.includes(tenant)) {
        throw new ApiError(403, `Forbidden: this credential is not linked to workspace '${presented.tenantId}' (x-tenant-id)`);
      }
      return { workspace: this.byId.get(tenant)!, scheme };
    }
    if (!credential.defaultWorkspace) {
      throw new ApiError(403, 'org_scoped_key_requires_workspace: this key is linked to several workspaces; name one with x-tenant-id');
    }
    return { workspace: this.byId.get(credential.defaultWorkspace)!, scheme };
  }

  describe(): SimulatorCredentials {
    const entry = (c: Credential) => ({ role: c.role, workspaces: c.workspaces, default_workspace: c.defaultWorkspace ?? null, region: c.region });
    const all = [...this.bySecret.values()];
    return {
      organization: this.fixture.organization,
      workspaces: this.workspaces,
      api_keys: all.filter((c) => c.scheme === 'api-key').map((c) => ({ key: c.secret, ...entry(c) })),
      bearer_tokens: all.filter((c) => c.scheme === 'bearer').map((c) => ({ token: c.secret, ...entry(c) })),
    };
  }
}
