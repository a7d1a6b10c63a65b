/** A small seeded PRNG (mulberry32): the same seed gives the same sequence of draws in [0, 1). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * The seed of a crash test's random choices (kill points, bursts, delays): `WREN_CRASH_SEED` when set, to
 * replay a failure, else a fresh one. The test logs it, so a red run can be retraced.
 */
export function crashSeed(): number {
  const given = process.env['WREN_CRASH_SEED'];
  if (given === undefined || given === '') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`WREN_CRASH_SEED must be an integer, not ${given}`);
  return seed;
}

/** An integer in [min, max) from `draw`. */
export const between = (draw: () => number, min: number, max: number): number =>
  min + Math.floor(draw() * (max - min));
