// A target that stops answering during a run stops the run: the report stays partial, with what
// ran judged, and the run exits 2 instead of turning the rest into failures. Transport errors
// in a row on one plane make the watch probe the plane; when the probe gets no answer either,
// the target is lost, since its last answer: a test that failed after that says nothing of its rules.
import type { Endpoint } from '../specs/contract.ts';
import { isConnectError } from './connect-error.ts';
import { type Sent, sendPastFaults } from './retry.ts';
import type { Exchange } from '../specs/evidence-protocol.ts';

const IN_A_ROW = 3;
const PROBE_TIMEOUT_MS = 5_000;

/** Why the target was lost, and since when (ms since the epoch): the end of its last answer on the lost endpoint. */
export interface TargetLoss {
  reason: string;
  since: number;
}

export class TargetWatch {
  private readonly failures = new Map<Endpoint, number>();
  /** When each endpoint's latest answer ended. */
  private readonly lastAnswer = new Map<Endpoint, number>();
  private readonly started = Date.now();
  private probing = false;
  private lost = false;

  constructor(
    private readonly planes: Partial<Record<Endpoint, string>>,
    private readonly onLost: (loss: TargetLoss) => void,
  ) {}

  /** Called with every exchange the recording proxies complete. */
  seen(endpoint: Endpoint, exchange: Exchange): void {
    if (!exchange.error) {
      this.failures.set(endpoint, 0);
      const ended = Date.parse(exchange.startedDateTime) + exchange.time;
      this.lastAnswer.set(endpoint, Math.max(ended, this.lastAnswer.get(endpoint) ?? 0));
      return;
    }
    const count = (this.failures.get(endpoint) ?? 0) + 1;
    this.failures.set(endpoint, count);
    if (count >= IN_A_ROW && !this.probing && !this.lost) void this.probe(endpoint, exchange.error);
  }

  private async probe(endpoint: Endpoint, error: string): Promise<void> {
    this.probing = true;
    const url = this.planes[endpoint]!;
    // Taken before the probe: an answer that ends while it waits is no sign the target was there later.
    const since = this.lastAnswer.get(endpoint) ?? this.started;
    try {
      // Any answer will do; a reset on the way is sent past, as the suites' requests are.
      await sendPastFaults('no-effect', `GET ${url}`, async (): Promise<Sent<number>> => {
        try {
          const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
          await response.body?.cancel();
          return { met: { kind: 'answer', status: response.status }, answer: response.status };
        } catch (error) {
          // No connection at all is no fault on the way: the target is gone.
          if (isConnectError(((error as Error).cause as Error | undefined) ?? (error as Error))) throw error;
          return { met: { kind: 'broken', message: (error as Error).message }, broke: error as Error };
        }
      });
      this.failures.set(endpoint, 0);
    } catch {
      this.lost = true;
      this.onLost({ reason: `the target stopped answering: ${endpoint} ${url} (${error})`, since });
    } finally {
      this.probing = false;
    }
  }
}
