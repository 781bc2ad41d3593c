/**
 * Sets kept as sorted arrays of numbers (the state caches' thread-position summaries):
 * the one subset test both caches use.
 */

/** Every element of `small` is in `big`; both sorted ascending, without repeats. */
export function isSubset(small: readonly number[], big: readonly number[]): boolean {
  let j = 0;
  for (const x of small) {
    while (j < big.length && (big[j] ?? 0) < x) j++;
    if (j >= big.length || big[j] !== x) return false;
    j++;
  }
  return true;
}
