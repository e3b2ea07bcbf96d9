// Whether a request failed to connect at all, as against an answer dropped once connected: the
// target is unreachable (no finding either way), not at fault. The recording proxy, the suites'
// client, preflight and the watch on the target all ask it.
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** Whether an error is a failure to connect at all (not an answer dropped once connected). */
export const isConnectError = (error: Error) => CONNECT_ERRORS.has((error as NodeJS.ErrnoException).code ?? '');
