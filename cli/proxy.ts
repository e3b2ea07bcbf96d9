// `proxy`: a standalone recording, validating proxy in front of any target.
import { resolve } from 'node:path';
import { PLANES, type Plane } from '../specs/contract.ts';
import { type ChaosCounts, type ChaosOptions, chaosOptionsProblem, DEFAULT_RETRY_AFTER_SECONDS } from '../harness/proxy/chaos.ts';
import { HarWriter } from '../harness/proxy/har.ts';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_HEADER_BYTES, DEFAULT_TIMEOUT_MS, RecordingProxy } from '../harness/proxy/recording-proxy.ts';
import { Redaction } from '../harness/proxy/redact.ts';
import { EXIT, integerOption, NAME, parse, positiveOption, untilSignal, UsageError } from './args.ts';
import { unknownName } from '../specs/suggest.ts';
import type { Exchange } from '../specs/evidence-protocol.ts';

const PROXY_HELP = `Usage: ${NAME} proxy --target <url> [options]

Starts a recording proxy on 127.0.0.1 in front of --target. Every exchange is validated
against the plane's OpenAPI document (violations are printed, and sent back to a client that
sends x-apc-violations: trailer, as that trailer, or a header on an answer without a body) and
recorded once the answer has been passed on, secrets redacted: the values of secret headers, query
parameters and JSON or form fields (X-Api-Key, Authorization, Cookie, names ending in token,
api_key, secret, password or signature, and those --redact adds), API keys (lsv2_...) and
bearer tokens under any name, and every secret so met wherever the target reflects it. The
same redacted text is what is printed. The HAR 1.2 file is written as
exchanges complete, so memory stays flat over a long session (a disk that cannot keep up loses
exchanges, counted, rather than holding them); it is a complete document once the proxy stops
(Ctrl-C or SIGTERM). Bodies over 256 KiB are recorded cut, with a note.

Limits: a request body over --max-body-bytes is refused with 413 and never forwarded; a target's
answer (other than an event stream, which passes through as it flows) over it is refused with
502, as it is held to be validated; request headers over --max-header-bytes get 431. Every such
refusal, and every exchange the target or the client broke off, is in the HAR with its _error.

Chaos: any --chaos-* option or --latency makes the proxy a flaky network in front of the target,
to try a client's retries. From a seed, each request in arrival order is reset (its connection
destroyed before forwarding: the target never sees it), answered 503 by the proxy (with
Retry-After and a {"detail": ...} that says it is the chaos mode's), or forwarded, delayed by
--latency plus a random 0..--chaos-jitter ms. The same seed and the same order of requests meet
the same faults. Faults are recorded like any exchange (a reset with its _error); the counts are
at GET /__apc/chaos ({requests, reset, unavailable, delayed, delay_ms_total}) and printed when
the proxy stops. The /__apc paths meet no chaos.

Options:
  --target <url>        the upstream base URL (required)
  --plane <name>        the plane the target serves: ${PLANES.join(', ')} (default: agent-server);
                        platform-api is the platform API of either region (US or EU)
  --port <n>            port to listen on (default: a free port)
  --har <file>          where to write the HAR (default: exchanges.har)
  --max-body-bytes <n>  largest request body, and largest answer held to validate (default: ${DEFAULT_MAX_BODY_BYTES}, 16 MiB)
  --max-header-bytes <n>  largest request head (default: ${DEFAULT_MAX_HEADER_BYTES}, 32 KiB)
  --timeout <s>         how long the target may stay silent, before its answer (then 504) or
                        within a stream (then the stream is cut), in seconds (default: ${DEFAULT_TIMEOUT_MS / 1000})
  --quiet               print only exchanges with violations or errors, not every exchange
  --redact <name>       one more header, query parameter or field name whose value is secret
                        (any case; repeat the option for more names)
  --chaos-seed <text>   the seed of the chaos mode's faults (default: chaos)
  --chaos-unavailable <rate>  share of requests answered 503, 0..1 (default: 0)
  --chaos-retry-after <s>  the Retry-After of those 503s, whole seconds (default: ${DEFAULT_RETRY_AFTER_SECONDS})
  --chaos-reset <rate>  share of requests whose connection is reset, 0..1 (default: 0)
  --chaos-jitter <ms>   each forwarded request is delayed by a random 0..ms more (default: 0)
  --latency <ms>        every request is delayed by ms (a slow target; default: 0)
  -h, --help            this help

Exit codes: 0 stopped, the HAR complete; 1 writing the HAR failed on the way (a full disk: the
proxy goes on forwarding, says so, and the HAR is incomplete) or left exchanges out (the disk
could not keep up: the HAR's comment counts them); 2 usage error (a bad option, a
HAR file that cannot be created).`;

export async function proxy(args: string[]): Promise<number> {
  const values = parse(args, {
    target: { type: 'string' },
    plane: { type: 'string' },
    port: { type: 'string' },
    har: { type: 'string' },
    quiet: { type: 'boolean' },
    'max-body-bytes': { type: 'string' },
    'max-header-bytes': { type: 'string' },
    timeout: { type: 'string' },
    redact: { type: 'string', multiple: true },
    'chaos-seed': { type: 'string' },
    'chaos-unavailable': { type: 'string' },
    'chaos-retry-after': { type: 'string' },
    'chaos-reset': { type: 'string' },
    'chaos-jitter': { type: 'string' },
    latency: { type: 'string' },
  });
  if (values.help) {
    console.log(PROXY_HELP);
    return EXIT.ok;
  }
  const target = values.target as string | undefined;
  if (!target || !/^https?:\/\//i.test(target)) throw new UsageError('--target <http(s) URL> is required');
  const plane = ((values.plane as string | undefined) ?? 'agent-server') as Plane;
  if (!PLANES.includes(plane)) throw new UsageError(unknownName('plane', plane, PLANES));
  const port = integerOption(values, 'port', 0, 65_535) ?? 0;
  const maxBodyBytes = integerOption(values, 'max-body-bytes', 1);
  const maxHeaderBytes = integerOption(values, 'max-header-bytes', 1024);
  const timeoutSeconds = positiveOption(values, 'timeout');
  const chaos = chaosOptions(values);
  const harFile = resolve((values.har as string | undefined) ?? 'exchanges.har');
  let harFailed = false;
  const har = await HarWriter.open(harFile, (error) => {
    harFailed = true;
    console.error(`[proxy] writing ${harFile} failed (${error.message}): later exchanges are not recorded; the proxy goes on forwarding`);
  }).catch((error: Error) => {
    throw new UsageError(`cannot write the HAR file ${harFile}: ${error.message}`);
  });
  const recorder = new RecordingProxy({
    plane,
    target,
    port,
    keep: false,
    maxBodyBytes,
    maxHeaderBytes,
    timeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000,
    redaction: new Redaction({ names: values.redact as string[] | undefined }),
    chaos,
    onExchange: (e) => {
      har.add(e);
      if (values.quiet && e.violations.length === 0 && !e.error) return;
      console.log(exchangeLine(e));
    },
  });
  const url = await recorder.start();
  console.log(`[proxy] ${url} → ${target} (${plane}); HAR: ${harFile}${chaos ? `; chaos, seed '${chaos.seed}'` : ''}`);
  await untilSignal();
  await recorder.close();
  const counts = recorder.chaosCounts();
  if (counts) console.log(chaosLine(counts));
  await har.close().catch(() => {});
  if (harFailed) {
    console.error(`[proxy] ${harFile} is incomplete: writing it failed`);
    return EXIT.failed;
  }
  if (har.dropped > 0) {
    console.error(`[proxy] ${harFile} left out ${har.dropped} of ${har.written + har.dropped} exchanges: writing it could not keep up`);
    return EXIT.failed;
  }
  console.log(`[proxy] wrote ${har.written} exchanges to ${harFile}`);
  return EXIT.ok;
}

/** The chaos mode's options, when any is given (the seed defaults); a rate outside 0..1 is a usage error. */
function chaosOptions(values: ReturnType<typeof parse>): ChaosOptions | undefined {
  const names = ['chaos-seed', 'chaos-unavailable', 'chaos-retry-after', 'chaos-reset', 'chaos-jitter', 'latency'];
  if (!names.some((name) => values[name] !== undefined)) return undefined;
  const options: ChaosOptions = {
    seed: (values['chaos-seed'] as string | undefined) ?? 'chaos',
    unavailableRate: rateOption(values, 'chaos-unavailable'),
    retryAfterSeconds: integerOption(values, 'chaos-retry-after', 0),
    resetRate: rateOption(values, 'chaos-reset'),
    jitterMs: integerOption(values, 'chaos-jitter', 0),
    latencyMs: integerOption(values, 'latency', 0),
  };
  const problem = chaosOptionsProblem(options);
  if (problem) throw new UsageError(`chaos: ${problem}`);
  return options;
}

/** A share within 0..1 from an option, or a usage error naming it. */
function rateOption(values: ReturnType<typeof parse>, name: string): number | undefined {
  const given = values[name];
  if (given === undefined) return undefined;
  const rate = Number(given);
  if (given === '' || !(rate >= 0 && rate <= 1)) throw new UsageError(`--${name} must be a share within 0..1, got '${String(given)}'`);
  return rate;
}

/** The summary of what the chaos mode did, printed when the proxy stops. */
function chaosLine(c: ChaosCounts): string {
  return `[proxy] chaos: ${c.requests} requests, ${c.reset} reset, ${c.unavailable} answered 503, ${c.delayed} delayed (${c.delay_ms_total} ms in all)`;
}

/** The line printed per exchange, from the recorded (redacted) exchange only. */
export function exchangeLine(e: Exchange): string {
  const flag = e.violations.length > 0 ? `  ✖ ${e.violations.map((v) => `${v.at || '(body)'} ${v.message}`).join('; ')}` : '';
  const error = e.error ? `  ✖ ${e.error}` : '';
  return `[proxy] ${e.request.method} ${e.request.url} → ${e.response.status}${e.operation ? ` (${e.operation})` : ''}${flag}${error}`;
}
