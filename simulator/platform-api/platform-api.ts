// The platform API of one region (spec §1): its trace runs, experiments and OAuth flows. The US
// and EU regions are two instances, each holding its own data.
import type { Region } from '../auth/workspaces.ts';
import type { Clock } from '../clock.ts';
import type { IdGenerator } from '../ids.ts';
import { ExperimentStore } from './experiments.ts';
import { SUPPORTS_ZSTD } from './multipart.ts';
import { OAuthFlows } from './oauth.ts';
import { TraceRunStore } from './trace-runs.ts';

interface InstanceFlags {
  gzip_body_enabled: boolean;
  zstd_compression_enabled: boolean;
}

export class PlatformApi {
  readonly traceRuns: TraceRunStore;
  readonly experiments: ExperimentStore;
  readonly oauth: OAuthFlows;
  /** What GET /info advertises; the official client compresses multipart bodies as these allow. */
  instanceFlags: InstanceFlags = { gzip_body_enabled: false, zstd_compression_enabled: false };

  constructor(
    readonly region: Region,
    env: { clock: Clock; ids: IdGenerator; strict?: boolean },
  ) {
    this.traceRuns = new TraceRunStore(env);
    this.experiments = new ExperimentStore({ ...env, traceRuns: this.traceRuns });
    this.oauth = new OAuthFlows(env);
  }

  /**
   * GET /info as the official client reads it (langsmith JS client, langsmith-sdk js/src/client.ts; LangSmith API
   * reference, api.smith.langchain.com/redoc): version, batch_ingest_config, instance_flags (TRACE-INFO).
   */
  info() {
    return {
      version: '0.16.0',
      license_expiration_time: null,
      batch_ingest_config: {
        use_multipart_endpoint: true,
        scale_up_qsize_trigger: 1000,
        scale_up_nthreads_limit: 16,
        scale_down_nempty_trigger: 4,
        size_limit: 100,
        // Below the simulator's 16 MiB request limit, part headers included.
        size_limit_bytes: 15 * 1024 * 1024,
      },
      instance_flags: { ...this.instanceFlags, zstd_compression_enabled: this.instanceFlags.zstd_compression_enabled && SUPPORTS_ZSTD },
      customer_info: null,
      region: this.region,
    };
  }

  /** Runs, feedback, datasets, experiments, OAuth flows and the instance flags, as plain JSON. */
  snapshot() {
    return {
      // The snapshot file's key, as earlier versions wrote it: a saved state loads.
      runs: this.traceRuns.snapshot(),
      experiments: this.experiments.snapshot(),
      oauth: this.oauth.snapshot(),
      instanceFlags: { ...this.instanceFlags },
    };
  }

  restore(snapshot: ReturnType<PlatformApi['snapshot']>): void {
    this.reset();
    this.traceRuns.restore(snapshot.runs);
    this.experiments.restore(snapshot.experiments);
    this.oauth.restore(snapshot.oauth);
    this.instanceFlags = { ...snapshot.instanceFlags };
  }

  reset(): void {
    this.traceRuns.clear();
    this.experiments.clear();
    this.oauth.clear();
    this.instanceFlags = { gzip_body_enabled: false, zstd_compression_enabled: false };
  }
}
