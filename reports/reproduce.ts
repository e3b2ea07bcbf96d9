// The lines that reproduce a failure: the `run --grep` command that reruns exactly its test,
// and a curl of the exchange it failed on. Recordings are redacted (REDACTED stands for each
// secret), so each secret becomes a reference to an environment variable the user sets: no
// redacted value is ever printed as if it were the secret.
import type { RecordedExchange } from './conformance-report.ts';
import { TOOL } from '../harness/tool.ts';

const REDACTED = 'REDACTED';

/** A word for a POSIX shell: as is when nothing in it is special, otherwise in single quotes. */
export function shellQuote(text: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A regular expression matching `text` literally. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What the command needs of a test: its Playwright project (the plane), file below the suites, and titles. */
interface TestPlace {
  project: string;
  /** The spec file as Playwright names it (agent-server/threads-get.spec.ts). */
  file: string;
  /** Its describe blocks' titles, then its own. */
  titles: string[];
}

/**
 * `run … --grep <re>` that selects this test alone. Playwright matches --grep against the test's
 * file, its titles and tags joined by spaces (`<file> <describe> @TAG… <title> @TAG…`): the
 * expression spells out the file and each title, lets any tags follow each, and ends there.
 * `given` holds the options of the run a rerun repeats (--target, --profile…), as given.
 */
export function rerunCommand(place: TestPlace, given: string[], seed: string): string {
  const tags = '(?: @\\S+)*';
  const grep = `${literal(place.file)} ${place.titles.filter(Boolean).map(literal).join(`${tags} `)}${tags}$`;
  return [`npx ${TOOL.name} run`, ...given.map(shellQuote), '--seed', shellQuote(seed), '--plane', shellQuote(place.project), '--grep', shellQuote(grep)].join(
    ' ',
  );
}

/** Where a curl sends its request: the target's URL, or an environment variable for one that moves (the embedded simulator's ports). */
export type Base = { url: string } | { env: string };

/** How a secret is named as an environment variable: X-Api-Key as the target config names it. */
interface SecretNames {
  /** The target config's api_key_env, when known. */
  apiKeyEnv?: string;
}

// Request headers curl sets itself, or that only the harness sends (x-apc-*).
const LEFT_OUT = /^(content-length|host|connection|keep-alive|transfer-encoding|date|x-forwarded-for|x-apc-.*)$/i;

const envName = (name: string) =>
  name
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')
    .toUpperCase() || 'SECRET';

/** The name of the secret that REDACTED stands for at the end of `before` (`token=`, `"api_key": "`, `Bearer `). */
function secretAt(before: string, names: SecretNames): string {
  if (/bearer\s+$/i.test(before)) return 'BEARER_TOKEN';
  const name = /([A-Za-z0-9_-]+)["']?\s*[:=]\s*["']?$/.exec(before)?.[1];
  if (name && /^x[-_]api[-_]key$/i.test(name)) return names.apiKeyEnv ?? 'LANGSMITH_API_KEY';
  return name ? envName(name) : 'SECRET';
}

/**
 * A shell word for `text` in which each REDACTED is the environment variable `name(before it)`:
 * in double quotes when nothing else in it is special there, else quoted parts joined.
 */
function wordWithSecrets(text: string, name: (before: string) => string): string {
  const pieces = text.split(REDACTED);
  if (pieces.length === 1) return shellQuote(text);
  const vars = pieces.slice(1).map((_, i) => name(pieces.slice(0, i + 1).join(REDACTED)));
  if (pieces.every((p) => !/[$`"\\!\n]/.test(p))) return `"${pieces.map((p, i) => (i === 0 ? p : `\${${vars[i - 1]}}${p}`)).join('')}"`;
  return pieces.map((p, i) => `${i === 0 ? '' : `"\${${vars[i - 1]}}"`}${p === '' ? '' : shellQuote(p)}`).join('');
}

/**
 * A curl of the exchange's request, as the recording has it, one option a line. Undefined for a
 * webhook delivery: the target sent that request, no curl can make it send it again.
 */
export function curlOf(exchange: RecordedExchange, base: Base, names: SecretNames): string | undefined {
  if (exchange.delivery) return undefined;
  const { method, url, headers, body } = exchange.request;
  const secret = (before: string) => secretAt(before, names);
  const target = 'url' in base ? wordWithSecrets(`${base.url}${url}`, secret) : `"\${${base.env}}"${wordWithSecrets(url, secret)}`;
  const lines = [`curl${/[[\]{}]/.test(url) ? ' -g' : ''}${method === 'HEAD' ? ' --head' : method === 'GET' && !body ? '' : ` -X ${method}`} ${target}`];
  for (const [name, value] of headers) {
    if (!LEFT_OUT.test(name)) lines.push(`-H ${wordWithSecrets(`${name}: ${value}`, secret)}`);
  }
  const cut = body === undefined ? null : /… \[(\d+) more bytes not recorded\]$/.exec(body);
  if (body !== undefined && body !== '') lines.push(`--data-binary ${wordWithSecrets(cut ? body.slice(0, cut.index) : body, secret)}`);
  const curl = lines.join(' \\\n  ');
  return cut ? `# the recording keeps the body's first 256 KiB (${cut[1]} more bytes were sent): rerun the test to send it whole\n${curl}` : curl;
}
