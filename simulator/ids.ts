// Seeded id generation: the same seed gives the same sequence of UUIDs.

/** The four 32-bit words of the generator's state: where the id stream stands. */
export type IdState = [number, number, number, number];

/** sfc32, a small, fast PRNG with 128 bits of state, kept in `s` so that a snapshot can read it. */
function sfc32(s: IdState): number {
  const [a, b, c, d] = s;
  const t = (((a + b) | 0) + d) | 0;
  s[3] = (d + 1) | 0;
  s[0] = b ^ (b >>> 9);
  s[1] = (c + (c << 3)) | 0;
  s[2] = (((c << 21) | (c >>> 11)) + t) | 0;
  return t >>> 0;
}

/** cyrb128: spreads a seed string over four 32-bit words. */
function hashSeed(seed: string): IdState {
  let h1 = 1779033703,
    h2 = 3144134277,
    h3 = 1013904242,
    h4 = 2773480762;
  for (let i = 0; i < seed.length; i++) {
    const k = seed.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  return [(h1 ^ h2 ^ h3 ^ h4) >>> 0, (h2 ^ h1) >>> 0, (h3 ^ h1) >>> 0, (h4 ^ h1) >>> 0];
}

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
