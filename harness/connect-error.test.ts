import { expect, test } from '@playwright/test';
import { isConnectError } from './connect-error.ts';

const failure = (code: string) => Object.assign(new Error(code), { code });

test('a refused, unroutable or unresolved connection is a failure to connect; a reset once connected is not', () => {
  expect(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT'].map((code) => isConnectError(failure(code)))).toEqual([
    true,
    true,
    true,
    true,
  ]);
  expect(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'].map((code) => isConnectError(failure(code)))).toEqual([false, false, false]);
  expect(isConnectError(new Error('no code'))).toBe(false);
});
