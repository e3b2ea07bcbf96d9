// Seeded id generation: the same seed gives the same sequence of UUIDs.
import { hashSeed, type RandomState, sfc32 } from '../specs/seeded-random.ts';

/** The four 32-bit words of the generator's state: where the id stream stands. */
export type IdState = RandomState;

export class IdGenerator {
  private words!: IdState;

  constructor(private seed: string) {
    this.reseed(seed);
  }

  reseed(seed: string = this.seed): void {
    this.seed = seed;
    this.words = hashSeed(seed).map((w) => w | 0) as IdState;
  }

  /** Where the stream stands: restoring it draws the same ids from there on. */
  state(): IdState {
    return [...this.words];
  }

  restore(state: IdState): void {
    if (state.length !== 4 || !state.every(Number.isInteger)) throw new TypeError('an id state is four 32-bit integers');
    this.words = state.map((w) => w | 0) as IdState;
  }

  /** A version-4-shaped UUID drawn from the seeded stream. */
  uuid(): string {
    const w0 = sfc32(this.words);
    const w1 = sfc32(this.words);
    const w2 = sfc32(this.words);
    const w3 = sfc32(this.words);
    // Byte 6 carries the version (4), byte 8 the variant (10xx).
    const w1v = (w1 & 0xffff0fff) | 0x4000;
    const w2v = (w2 & 0x3fffffff) | 0x80000000;
    return `${hex32(w0)}-${hex16(w1v >>> 16)}-${hex16(w1v)}-${hex16(w2v >>> 16)}-${hex16(w2v)}${hex32(w3)}`;
  }
}

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
const hex16 = (v: number) => HEX[(v >>> 8) & 0xff] + HEX[v & 0xff];
const hex32 = (v: number) => hex16(v >>> 16) + hex16(v);
