/**
 * The rectangular linear sum assignment as SciPy's `linear_sum_assignment` solves it (minimising; Crouse's
 * shortest augmenting path, DF Crouse, IEEE TAES 52(4), 2016, pp. 1685-1686, as SciPy implements it), step
 * for step, so that ties are broken as SciPy breaks them: a tall matrix is solved transposed, columns are
 * scanned from the last, and a tie for the lowest path cost prefers a free column. Returns SciPy's
 * `(row_ind, col_ind)`: `row_ind` ascending, min(rows, columns) pairs.
 */
export function linearSumAssignment(cost: readonly (readonly number[])[]): { rowInd: number[]; colInd: number[] } {
  let nr = cost.length;
  let nc = nr ? cost[0].length : 0;
  if (nr === 0 || nc === 0) return { rowInd: [], colInd: [] };
  const transpose = nc < nr;
  const c = new Float64Array(nr * nc);
  for (let i = 0; i < nr; i++) {
    for (let j = 0; j < nc; j++) {
      const value = cost[i][j];
      if (Number.isNaN(value) || value === -Infinity) throw new Error('cost matrix is invalid (NaN or -inf)');
      if (transpose) c[j * nr + i] = value;
      else c[i * nc + j] = value;
    }
  }
  if (transpose) [nr, nc] = [nc, nr];

  const u = new Float64Array(nr);
  const v = new Float64Array(nc);
  const shortest = new Float64Array(nc);
  const path = new Int32Array(nc).fill(-1);
  const col4row = new Int32Array(nr).fill(-1);
  const row4col = new Int32Array(nc).fill(-1);
  const SR = new Uint8Array(nr);
  const SC = new Uint8Array(nc);
  const remaining = new Int32Array(nc);

  for (let curRow = 0; curRow < nr; curRow++) {
    // Shortest augmenting path from curRow.
    let minVal = 0;
    let numRemaining = nc;
    for (let it = 0; it < nc; it++) remaining[it] = nc - it - 1;
    SR.fill(0);
    SC.fill(0);
    shortest.fill(Infinity);
    let sink = -1;
    let i = curRow;
    while (sink === -1) {
      let index = -1;
      let lowest = Infinity;
      SR[i] = 1;
      for (let it = 0; it < numRemaining; it++) {
        const j = remaining[it];
        const r = minVal + c[i * nc + j] - u[i] - v[j];
        if (r < shortest[j]) {
          path[j] = i;
          shortest[j] = r;
        }
        if (shortest[j] < lowest || (shortest[j] === lowest && row4col[j] === -1)) {
          lowest = shortest[j];
          index = it;
        }
      }
      minVal = lowest;
      if (minVal === Infinity) throw new Error('cost matrix is infeasible');
      const j = remaining[index];
      if (row4col[j] === -1) sink = j;
      else i = row4col[j];
      SC[j] = 1;
      remaining[index] = remaining[--numRemaining];
    }
    // Dual variables.
    u[curRow] += minVal;
    for (let r = 0; r < nr; r++) if (SR[r] && r !== curRow) u[r] += minVal - shortest[col4row[r]];
    for (let j = 0; j < nc; j++) if (SC[j]) v[j] -= minVal - shortest[j];
    // Augment.
    let j = sink;
    for (;;) {
      const r = path[j];
      row4col[j] = r;
      const previous = col4row[r];
      col4row[r] = j;
      j = previous;
      if (r === curRow) break;
    }
  }

  if (transpose) {
    // Back in the original orientation, sorted by original row (SciPy's argsort of col4row; its values are distinct).
    const order = Array.from(col4row.keys()).sort((a, b) => col4row[a] - col4row[b]);
    return { rowInd: order.map((k) => col4row[k]), colInd: order };
  }
  return { rowInd: Array.from({ length: nr }, (_, k) => k), colInd: Array.from(col4row) };
}
