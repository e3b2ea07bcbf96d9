// The reproduction lines, run for real: the curl goes through a POSIX shell to a local server
// that echoes what it got, so the quoting is proved by what arrives, not by how it looks.
import { expect, test } from '@playwright/test';
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import type { RecordedExchange } from './conformance-report.ts';
import { curlOf, rerunCommand, shellQuote } from './reproduce.ts';

const sh = promisify(execFile);

const AWKWARD = `{"note":"it's \\"quoted\\" $HOME \`id\` !x \\\\ back","lines":"one\ntwo\r\nthree","name":"été 日本 🚀","client_secret":"REDACTED"}`;

function exchange(request: Partial<RecordedExchange['request']> = {}): RecordedExchange {
  return {
    id: 'agent-server-7',
    plane: 'agent-server',
    request: {
      method: 'POST',
      url: "/threads/x?token=REDACTED&q=[a]&s=it's",
      headers: [
        ['content-type', 'application/json'],
        ['content-length', '999'],
        ['x-api-key', 'REDACTED'],
        ['authorization', 'Bearer REDACTED'],
        ['x-note', 'a "b" $c'],
      ],
      body: AWKWARD,
      ...request,
    },
    response: { status: 500, headers: [] },
    violations: [],
  };
}

/** A server that answers with what it received. */
async function echo<T>(use: (url: string, received: () => Promise<IncomingMessage & { body: string }>) => Promise<T>): Promise<T> {
  let got: Promise<IncomingMessage & { body: string }> = new Promise(() => {});
  const server = createServer((req, res) => {
    got = new Promise((done) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.end('ok');
        done(Object.assign(req, { body: Buffer.concat(chunks).toString('utf8') }));
      });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  try {
    return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, () => got);
  } finally {
    server.close();
  }
}

test('the curl sends the recorded request byte for byte, each secret from its environment variable', async () => {
  await echo(async (url, received) => {
    const curl = curlOf(exchange(), { url }, { apiKeyEnv: 'MY_KEY' })!;
    expect(curl).not.toContain('REDACTED');
    expect(curl).toContain('-H "x-api-key: ${MY_KEY}"');
    expect(curl).not.toContain('content-length');
    const env = { PATH: process.env.PATH, HOME: '/nowhere', MY_KEY: 'k-1', BEARER_TOKEN: 'b 2', TOKEN: "t'3", CLIENT_SECRET: 'c"4' };
    await sh('/bin/sh', ['-c', `${curl} -s -o /dev/null`], { env });
    const req = await received();
    expect(req.method).toBe('POST');
    expect(req.url).toBe("/threads/x?token=t'3&q=[a]&s=it's");
    expect(req.headers['x-api-key']).toBe('k-1');
    expect(req.headers.authorization).toBe('Bearer b 2');
    expect(req.headers['x-note']).toBe('a "b" $c');
    // The variable's value goes in as it is: a secret is a plain string.
    expect(req.body).toBe(AWKWARD.replace('REDACTED', 'c"4'));
  });
});

test('a GET has no method option; a moving target is an environment variable; a delivery has no curl', async () => {
  const get = exchange({ method: 'GET', url: '/threads/1', headers: [['x-api-key', 'REDACTED']], body: undefined });
  expect(curlOf(get, { env: 'AGENT_SERVER_URL' }, {})).toBe(`curl "\${AGENT_SERVER_URL}"/threads/1 \\\n  -H "x-api-key: \${LANGSMITH_API_KEY}"`);
  expect(curlOf({ ...get, delivery: true }, { url: 'http://x' }, {})).toBeUndefined();
  const cut = exchange({ body: `{"a":"${'x'.repeat(10)}… [300 more bytes not recorded]`, headers: [] });
  expect(curlOf(cut, { url: 'http://x' }, {})).toMatch(/^# the recording keeps the body's first 256 KiB \(300 more bytes were sent\)[^\n]*\ncurl -g -X POST /);
  expect(curlOf(cut, { url: 'http://x' }, {})).toContain(`--data-binary '{"a":"xxxxxxxxxx'`);
});

test('shell words are quoted only where they need it', async () => {
  expect(shellQuote('agent-server')).toBe('agent-server');
  expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  const { stdout } = await sh('/bin/sh', ['-c', `printf %s ${shellQuote('a \'b\' "c" $d\n日本')}`]);
  expect(stdout).toBe('a \'b\' "c" $d\n日本');
});

test('the rerun command names the test by file and titles, tags allowed after each', () => {
  const command = rerunCommand(
    { project: 'agent-server', file: 'agent-server/threads-get.spec.ts', titles: ['GET /threads/{id}', 'a missing thread (any id) answers 404'] },
    ['--target', 'my target.yaml'],
    'apc',
  );
  expect(command).toBe(
    "npx agent-platform-conformance run --target 'my target.yaml' --seed apc --plane agent-server --grep 'agent-server/threads-get\\.spec\\.ts GET /threads/\\{id\\}(?: @\\S+)* a missing thread \\(any id\\) answers 404(?: @\\S+)*$'",
  );
  const grep = new RegExp(/--grep '(.*)'$/.exec(command)![1]);
  // What Playwright matches: project, file, each title followed by its tags.
  expect(grep.test(' agent-server agent-server/threads-get.spec.ts GET /threads/{id} @THREAD-GET a missing thread (any id) answers 404 @THREAD-GET-404')).toBe(
    true,
  );
  expect(grep.test(' agent-server agent-server/threads-get.spec.ts GET /threads/{id} a missing thread (any id) answers 404 twice')).toBe(false);
  expect(grep.test(' agent-server agent-server/threads-get.spec.ts GET /threads/{id} not a missing thread (any id) answers 404')).toBe(false);
});
