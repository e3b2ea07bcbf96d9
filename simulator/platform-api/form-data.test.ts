import { expect, test } from '@playwright/test';
import { ApiError } from '../http/errors.ts';
import { formParts } from './form-data.ts';

const TYPE = 'multipart/form-data; boundary=b0undary';
const read = (text: string | Buffer, type = TYPE) => formParts(Buffer.isBuffer(text) ? text : Buffer.from(text, 'latin1'), type);
const shown = (text: string | Buffer, type = TYPE) => read(text, type).map((p) => [p.name, p.mimeType, p.data.toString('latin1')]);

/** The status and message a body is refused with. */
function refusal(text: string, type = TYPE): [number, string] | undefined {
  try {
    read(text, type);
  } catch (error) {
    if (error instanceof ApiError) return [error.status, error.message];
    throw error;
  }
  return undefined;
}

test('parts come in order with their names, types and exact bytes; the preamble and epilogue are passed over', () => {
  const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const body = Buffer.concat([
    Buffer.from('preamble\r\n--b0undary\r\nContent-Disposition: form-data; name="a"\r\nContent-Type: Application/JSON; length=2\r\n\r\n{}'),
    // Bytes that look like a delimiter without being one stay in the part.
    Buffer.from('\r\n--b0undary\r\ncontent-disposition: form-data; name="bin"\r\n\r\n\r\n--b0undar\r\n'),
    bytes,
    Buffer.from('\r\n--b0undary--\r\nepilogue'),
  ]);
  const parts = read(body);
  expect(parts.map((p) => [p.name, p.mimeType])).toEqual([
    ['a', 'application/json'],
    ['bin', 'text/plain'],
  ]);
  expect(parts[0].data.toString()).toBe('{}');
  expect(parts[1].data.equals(Buffer.concat([Buffer.from('\r\n--b0undar\r\n'), bytes]))).toBe(true);
});

test('the body may open with the delimiter; a quoted boundary and an empty part read as well', () => {
  expect(shown('--b0undary\r\nContent-Disposition: form-data; name="x"\r\n\r\n\r\n--b0undary--')).toEqual([['x', 'text/plain', '']]);
  expect(shown('--a b\r\nContent-Disposition: form-data; name=x\r\n\r\n1\r\n--a b--', 'multipart/form-data; boundary="a b"')).toEqual([
    ['x', 'text/plain', '1'],
  ]);
});

test('parts that are not form-data are skipped, and text after a delimiter that is not CRLF is passed over', () => {
  const body = [
    '--b0undary\r\nContent-Type: text/plain\r\n\r\nno disposition',
    '--b0undary\r\nContent-Disposition: attachment; name="y"\r\n\r\nnot form-data',
    '--b0undaryjunk\r\nContent-Disposition: form-data; name="z"\r\n\r\nafter junk',
    '--b0undary\r\nContent-Disposition: form-data;\r\n  name="folded"\r\n\r\nkept',
    '--b0undary--',
  ].join('\r\n');
  expect(shown(body)).toEqual([['folded', 'text/plain', 'kept']]);
});

test('a text part in another charset is converted to UTF-8; a file keeps its bytes whatever its charset', () => {
  const body = Buffer.concat([
    Buffer.from('--b0undary\r\nContent-Disposition: form-data; name="t"\r\nContent-Type: application/json; charset=ISO-8859-1\r\n\r\n"\xe9"', 'latin1'),
    Buffer.from(
      '\r\n--b0undary\r\nContent-Disposition: form-data; name="f"; filename="f.txt"\r\nContent-Type: text/plain; charset=latin1\r\n\r\n\xe9',
      'latin1',
    ),
    Buffer.from('\r\n--b0undary\r\nContent-Disposition: form-data; name="u"\r\nContent-Type: application/json; charset=utf-8\r\n\r\n\xff', 'latin1'),
    Buffer.from('\r\n--b0undary--'),
  ]);
  const [text, file, utf8] = read(body);
  expect(JSON.parse(text.data.toString('utf8'))).toBe('é');
  expect([...file.data]).toEqual([0xe9]);
  expect([...utf8.data]).toEqual([0xff]);
  expect(refusal('--b0undary\r\nContent-Disposition: form-data; name="t"\r\nContent-Type: text/plain; charset=klingon\r\n\r\nx\r\n--b0undary--')?.[0]).toBe(
    415,
  );
});

test('a body cut short, a broken part header or no boundary is refused with a 400 that says why', () => {
  const part = '--b0undary\r\nContent-Disposition: form-data; name="a"\r\n\r\n{}';
  expect(refusal(`${part}\r\n--b0undary--`)).toBeUndefined();
  expect(refusal(`${part}\r\n--b0und`)).toEqual([400, 'Malformed multipart body: Unexpected end of form']);
  expect(refusal(part)).toEqual([400, 'Malformed multipart body: Unexpected end of form']);
  expect(refusal('{"post": []}')).toEqual([400, 'Malformed multipart body: Unexpected end of form']);
  expect(refusal('--b0undary\r\nContent-Disposition form-data\r\n\r\n{}\r\n--b0undary--')).toEqual([400, 'Malformed multipart body: Malformed part header']);
  expect(refusal('--b0undary\r\n\r\n{}\r\n--b0undary--')).toEqual([400, 'Malformed multipart body: Malformed part header']);
  expect(refusal('--b0undary\r\nContent-Disposition: form-data; name="a"\r\n--b0undary--')).toEqual([400, 'Malformed multipart body: Malformed part header']);
  expect(refusal(`${part}\r\n--b0undary--`, 'multipart/form-data')).toEqual([400, 'Malformed multipart body: Boundary not found']);
});

test('a quoted name reads the same whether or not it is the common form: escapes, tabs, bytes past ASCII, none at all', () => {
  const named = (disposition: string) => shown(`--b0undary\r\nContent-Disposition: ${disposition}\r\n\r\nv\r\n--b0undary--`).map(([name]) => name);
  expect(named('form-data; name="post.1"')).toEqual(['post.1']);
  expect(named('form-data; name="a\\"b\\\\c"')).toEqual(['a"b\\c']);
  expect(named('form-data; name="tab\there é"')).toEqual(['tab\there é']);
  expect(named('form-data; name=""')).toEqual(['']);
  expect(named('form-data; name="a"; filename="f.txt"')).toEqual(['a']);
  // Not a quoted string: the part is no form-data part, and is skipped.
  for (const broken of ['form-data; name="a', 'form-data; name="a"b"', 'form-data; name="']) expect(named(broken)).toEqual([]);
});
