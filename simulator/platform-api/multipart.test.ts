import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { awaitedRefusalOf } from '../http/errors.ts';
import { parseMultipart } from './multipart.ts';

const capture = (name: string) => readFileSync(new URL(`../../fixtures/platform/multipart/${name}.multipart`, import.meta.url));
const typeOf = (body: Buffer) => `multipart/form-data; boundary=${body.toString('latin1').split('\r\n')[0].slice(2)}`;

function body(parts: { name: string; type: string; data: Buffer | string }[], boundary = 'b0undary'): Buffer {
  return Buffer.concat([
    ...parts.flatMap((p) => [
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\nContent-Type: ${p.type}\r\n\r\n`),
      Buffer.from(p.data),
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
}

/** The status an action is refused with, if any. */
const refusal = async (run: () => unknown) => (await awaitedRefusalOf(run))?.status;

test("the official client's body parses into posts with their fields, an attachment and a feedback, in order", async () => {
  const raw = capture('merged-post-attachment-feedback');
  const ops = await parseMultipart(raw, { 'content-type': typeOf(raw) });
  expect(ops.map((op) => op.kind)).toEqual(['post', 'post', 'attachment', 'feedback']);
  const [parent] = ops;
  expect(parent.kind === 'post' && parent.run).toMatchObject({ name: 'parent-chain', inputs: { q: 'batched' }, outputs: { answer: 'z' } });
  const attachment = ops[2];
  expect(attachment.kind === 'attachment' && [attachment.name, attachment.attachment.mimeType, attachment.attachment.data.toString()]).toEqual([
    'notes_txt',
    'text/plain',
    'hello attachment',
  ]);
});

test('a gzip body parses like the plain one; post and patch of one run keep their order', async () => {
  const raw = capture('post-and-patch-in-one');
  const ops = await parseMultipart(gzipSync(raw), { 'content-type': typeOf(raw), 'content-encoding': 'gzip' });
  expect(ops.map((op) => op.kind)).toEqual(['post', 'post', 'attachment', 'patch', 'patch', 'feedback']);
  expect(ops[4].kind === 'patch' && ops[4].run.outputs).toEqual({ answer: 'z' });
});

test('binary attachments and non-ASCII JSON keep their exact bytes, with or without a charset', async () => {
  const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const run = '01a201a1-cfc7-7000-8000-01d3bd3f0f5e';
  const raw = body([
    { name: `post.${run}`, type: 'application/json', data: JSON.stringify({ id: run, name: 'é ✓ 日本' }) },
    { name: `post.${run}.inputs`, type: 'application/json; charset=utf-8', data: JSON.stringify({ q: 'ünïcode' }) },
    { name: `attachment.${run}.blob`, type: 'image/png', data: bytes },
  ]);
  const ops = await parseMultipart(raw, { 'content-type': 'multipart/form-data; boundary=b0undary' });
  expect(ops[0].kind === 'post' && ops[0].run).toMatchObject({ name: 'é ✓ 日本', inputs: { q: 'ünïcode' } });
  expect(ops[1].kind === 'attachment' && ops[1].attachment.data.equals(bytes)).toBe(true);
});

test('malformed bodies are refused with a 4xx', async () => {
  const run = '01a201a1-cfc7-7000-8000-01d3bd3f0f5e';
  const type = { 'content-type': 'multipart/form-data; boundary=b0undary' };
  const ok = body([{ name: `post.${run}`, type: 'application/json', data: '{}' }]);
  expect(await refusal(() => parseMultipart(ok.subarray(0, ok.length - 12), type))).toBe(400);
  expect(await refusal(() => parseMultipart(body([{ name: `post.${run}`, type: 'application/json', data: '{' }]), type))).toBe(422);
  expect(await refusal(() => parseMultipart(body([{ name: 'nonsense', type: 'application/json', data: '{}' }]), type))).toBe(422);
  expect(await refusal(() => parseMultipart(body([{ name: `post.${run}.inputs`, type: 'application/json', data: '{}' }]), type))).toBe(422);
  expect(await refusal(() => parseMultipart(ok, { 'content-type': 'application/json' }))).toBe(415);
  expect(await refusal(() => parseMultipart(ok, { ...type, 'content-encoding': 'gzip' }))).toBe(400);
  expect(await refusal(() => parseMultipart(ok, { ...type, 'content-encoding': 'br' }))).toBe(415);
});

test('runs and feedback are checked against their schemas in the contract, field parts included', async () => {
  const run = '01a201a1-cfc7-7000-8000-01d3bd3f0f5e';
  const type = { 'content-type': 'multipart/form-data; boundary=b0undary' };
  const refused = async (parts: { name: string; data: string }[]) =>
    (await awaitedRefusalOf(() => parseMultipart(body(parts.map((p) => ({ ...p, type: 'application/json' }))), type)))?.issues?.map((i) => i.loc);
  expect(await refused([{ name: `post.${run}`, data: JSON.stringify({ trace_id: 'not-a-uuid' }) }])).toEqual([[`post.${run}`, 'trace_id']]);
  expect(await refused([{ name: `post.${run}`, data: '[]' }])).toEqual([[`post.${run}`]]);
  expect(
    await refused([
      { name: `post.${run}`, data: '{}' },
      { name: `post.${run}.extra`, data: '"text"' },
    ]),
  ).toEqual([[`post.${run}`, 'extra']]);
  expect(await refused([{ name: `feedback.${run}`, data: JSON.stringify({ key: 'k', run_id: 'nope' }) }])).toEqual([[`feedback.${run}`, 'run_id']]);
  expect(await refused([{ name: `feedback.${run}`, data: JSON.stringify({ score: 1 }) }])).toEqual([[`feedback.${run}`, 'key']]);
});
