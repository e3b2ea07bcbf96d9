// sendRequests (capability bulk-requests): a batch of requests answered in process, one after the
// other, so that a client's bulk traffic (a rate-limit fill of thousands) costs no socket writes.
// Each request is made by `one`, the plane's own handling (or a broken target's front): rate limits
// count it and it is answered as over HTTP. No HTTP here.
import type { RequestBatch } from '../specs/types/simulator-admin.ts';
import { conflict } from './http/errors.ts';

/** One request of a batch: method, path with its query, headers. */
export type BatchedRequest = RequestBatch['requests'][number];

/** What a batch answers of one request: its status, its Retry-After, and the body of a 429. */
export interface BatchAnswer {
  status: number;
  retry_after?: string;
  body?: string;
}

/** How one request of a batch is answered: its status and headers, and its body read only when asked for. */
export type AnswerOne = (request: BatchedRequest) => Promise<{ status: number; retryAfter?: string | null; text: () => Promise<string> }>;

/**
 * Makes `batch.count` requests in turn from `batch.requests`, each once the one before is answered,
 * and answers what each answered. With a fault in force it makes none: one by one, each request
 * would meet the fault it matches, which a batch cannot honour.
 */
export async function answerBatch(batch: RequestBatch, one: AnswerOne, faultsInForce: number): Promise<BatchAnswer[]> {
  if (faultsInForce > 0) throw conflict(`sendRequests makes no request while a fault is in force (${faultsInForce}): send them one by one`);
  const answers: BatchAnswer[] = new Array(batch.count);
  for (let i = 0; i < batch.count; i++) {
    const answered = await one(batch.requests[i % batch.requests.length]);
    const answer: BatchAnswer = { status: answered.status };
    if (answered.retryAfter != null) answer.retry_after = answered.retryAfter;
    if (answered.status === 429) answer.body = await answered.text();
    answers[i] = answer;
  }
  return answers;
}
