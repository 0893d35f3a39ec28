/** Two-sided exact McNemar p by direct summation of binomial(n, 1/2) terms: the tests' own reference. */
export function exactMcNemarP(b: number, c: number): number {
  const n = b + c;
  let tail = 0;
  let coefficient = 1;
  for (let k = 0; k <= Math.min(b, c); k++) {
    tail += coefficient / 2 ** n;
    coefficient = (coefficient * (n - k)) / (k + 1);
  }
  return Math.min(1, 2 * tail);
}
