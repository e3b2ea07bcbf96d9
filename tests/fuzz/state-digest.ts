// A digest of everything an in-process simulator holds: its planes' stores, ids and clock.
// A refused request must leave it unchanged (principle 5: bad input loses nothing). Walks the
// objects generically, so a store added later is covered without changing this file.
import { createHash, type Hash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Simulator } from '../../simulator/simulator.ts';

export function stateDigest(simulator: Simulator): string {
  const hash = createHash('sha256');
  walk(hash, { agentServer: simulator.agentServer, controlPlane: simulator.controlPlane, platform: simulator.platform, ids: simulator.ids }, new Map());
  return hash.digest('hex');
}

function walk(hash: Hash, value: unknown, seen: Map<object, number>): void {
  if (value === null || typeof value !== 'object') {
    // Functions are behaviour, not state; symbols and undefined hash by their type.
    hash.update(typeof value === 'function' ? 'f' : `${typeof value}:${String(value)};`);
    return;
  }
  // Servers, sockets and timers are the machinery around the state.
  if (value instanceof EventEmitter || isTimer(value)) {
    hash.update('e;');
    return;
  }
  const back = seen.get(value);
  if (back !== undefined) {
    hash.update(`@${back};`);
    return;
  }
  seen.set(value, seen.size);
  if (Buffer.isBuffer(value)) {
    hash.update(value);
    return;
  }
  if (value instanceof Date) {
    hash.update(`d:${value.getTime()};`);
    return;
  }
  if (value instanceof Map) {
    hash.update(`M${value.size}[`);
    for (const [k, v] of value) {
      walk(hash, k, seen);
      walk(hash, v, seen);
    }
    hash.update(']');
    return;
  }
  if (value instanceof Set) {
    hash.update(`S${value.size}[`);
    for (const v of value) walk(hash, v, seen);
    hash.update(']');
    return;
  }
  hash.update(Array.isArray(value) ? 'A[' : '{');
  for (const key of Object.keys(value)) {
    hash.update(`${key}:`);
    walk(hash, (value as Record<string, unknown>)[key], seen);
  }
  hash.update(']');
}

function isTimer(value: object): boolean {
  return value.constructor?.name === 'Timeout' || value.constructor?.name === 'Immediate';
}
