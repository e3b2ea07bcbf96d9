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
    const bytes: number[] = [];
    for (let i = 0; i < 4; i++) {
      const word = sfc32(this.words);
      bytes.push(word >>> 24, (word >>> 16) & 0xff, (word >>> 8) & 0xff, word & 0xff);
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}
