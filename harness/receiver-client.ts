// The run's webhook receiver as the suites' workers reach it: global setup starts one receiver
// (harness/webhook-receiver.ts) for the whole run, at the one port a deployment's URL policy
// may allow, and every worker asks it over its control path what arrived.
import { request } from 'undici';
import { CONTROL_PREFIX, CONTROL_TOKEN_HEADER, type Failure, type ReceivedRequest } from './webhook-receiver.ts';

export interface ReceiverAccess {
  /** The receiver's local base URL. */
  url: string;
  /** The token of its control path. */
  token: string;
}

export class ReceiverClient {
  constructor(private readonly access: ReceiverAccess) {}

  received(path: string): Promise<ReceivedRequest[]> {
    return this.call('GET', `received?path=${encodeURIComponent(path)}`);
  }

  waitFor(count: number, path: string, timeoutMs: number): Promise<ReceivedRequest[]> {
    return this.call('GET', `wait?path=${encodeURIComponent(path)}&count=${count}&timeout=${Math.round(timeoutMs)}`);
  }

  async failNext(count: number, failure: Failure, path: string): Promise<void> {
    await this.call('POST', 'fail-next', { path, count, failure });
  }

  private async call<T>(method: 'GET' | 'POST', action: string, body?: unknown): Promise<T> {
    const response = await request(`${this.access.url}${CONTROL_PREFIX}${action}`, {
      method,
      headers: { [CONTROL_TOKEN_HEADER]: this.access.token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`the webhook receiver's control path answered ${response.statusCode}: ${text}`);
    return JSON.parse(text) as T;
  }
}
