"""
SQLMorph's four result-comparison techniques that need no embeddings, written out in Python from the reading
of SQLMorph's source (execution_accuracy, exact_column_and_exact_cell,
exact_column_and_partial_cell, no_column_and_partial_cell). It is the reference VES Lens is tested against:
rows, column names, equality, ordering and str() all come from CPython's own sqlite3, tuples and str, and
the greedy loops are the literal quadratic-per-round scans, so the numbers (and the crashes) are SQLMorph's.

Input on stdin: {"pairs": [{"db": path, "pred": sql, "gold": sql}, ...]}.
Output on stdout: one object per pair: {"<technique>": {"EX":..,"EXP":..,"EXR":..,"F1":..} or {"raises": "TypeError: ..."}};
the two exact-column techniques appear twice, "...:penalize" and "...:no-penalize".
"""
import json
import sqlite3
import sys
from collections import Counter

ZEROS = {"EX": 0, "EXP": 0.0, "EXR": 0.0, "F1": 0.0}
ONES = {"EX": 1, "EXP": 1.0, "EXR": 1.0, "F1": 1.0}


def run(conn, sql):
    """SQLite adapter: (names, rows) or None when anything fails (description None included)."""
    try:
        cur = conn.cursor()
        cur.execute(sql)
        return [d[0] for d in cur.description], cur.fetchall()
    except Exception:
        return None


def metrics(ex, matched, g_cells, p_cells):
    if g_cells == 0 and p_cells == 0:
        return {"EX": ex, "EXP": 1.0, "EXR": 1.0, "F1": 1.0}
    if g_cells == 0:
        return {"EX": ex, "EXP": 0.0, "EXR": 1.0, "F1": 0.0}
    if p_cells == 0:
        return {"EX": ex, "EXP": 1.0, "EXR": 0.0, "F1": 0.0}
    exp = matched / p_cells
    exr = matched / g_cells
    f1 = 2 * exp * exr / (exp + exr) if (exp + exr) > 0 else 0.0
    return {"EX": ex, "EXP": exp, "EXR": exr, "F1": f1}


def common_projection(gc, gr, pc, pr):
    common = sorted(set(gc) & set(pc))
    g_index = {c: i for i, c in enumerate(gc)}  # a repeated name keeps its last position
    p_index = {c: i for i, c in enumerate(pc)}
    gi = [g_index[c] for c in common]
    pi = [p_index[c] for c in common]
    return common, [tuple(r[i] for i in gi) for r in gr], [tuple(r[i] for i in pi) for r in pr]


def exact_column_exact_cell(gc, gr, pc, pr, penalize):
    common, gp, pp = common_projection(gc, gr, pc, pr)
    if not common:
        return dict(ZEROS)
    g_cells = len(gr) * len(gc)
    p_cells = len(pr) * (len(pc) if penalize else len(common))
    gcount, pcount = Counter(gp), Counter(pp)
    rows = sum(min(gcount[t], pcount[t]) for t in set(gcount) & set(pcount))
    return metrics(0, rows * len(common), g_cells, p_cells)


def greedy_partial(gcount, pcount, matched_counts, n):
    rest_g, rest_p = [], []
    for row, count in gcount.items():
        rest_g.extend([row] * (count - matched_counts.get(row, 0)))
    for row, count in pcount.items():
        rest_p.extend([row] * (count - matched_counts.get(row, 0)))
    rest_g.sort()
    rest_p.sort()
    if len(rest_g) * len(rest_p) * min(len(rest_g), len(rest_p)) > 2_000_000:
        return greedy_partial_by_rows(rest_g, rest_p, n)
    partial = 0.0
    while rest_g and rest_p:
        best, bg, bp = 0, -1, -1
        for i, g in enumerate(rest_g):
            for j, p in enumerate(rest_p):
                same = sum(1 for a, b in zip(g, p) if a == b)
                sim = same / n if n > 0 else 0
                if sim > best:
                    best, bg, bp = sim, i, j
        if best > 0:
            partial += best * n
            rest_g.pop(bg)
            rest_p.pop(bp)
        else:
            break
    return partial


def greedy_partial_by_rows(rest_g, rest_p, n):
    """
    The same greedy as greedy_partial's loop, for large leftovers (the literal loop takes minutes on 387 x 387
    rows): the matching counts are computed once, and each round finds the first maximum in the same
    gold-major, prediction-minor scan order with max() and index() per gold row; popping a matched pair
    removes its gold row and its prediction column, as the literal loop's pop() does.
    """
    counts = [[sum(1 for a, b in zip(g, p) if a == b) for p in rest_p] for g in rest_g]
    partial = 0.0
    while counts and counts[0]:
        best, bg, bp = 0, -1, -1
        for i, row in enumerate(counts):
            top = max(row)
            sim = top / n if n > 0 else 0
            if sim > best:
                best, bg, bp = sim, i, row.index(top)
        if best > 0:
            partial += best * n
            counts.pop(bg)
            for row in counts:
                row.pop(bp)
        else:
            break
    return partial


def exact_column_partial_cell(gc, gr, pc, pr, penalize):
    common, gp, pp = common_projection(gc, gr, pc, pr)
    if not common:
        return dict(ZEROS)
    n = len(common)
    g_cells = len(gr) * len(gc)
    p_cells = len(pr) * (len(pc) if penalize else n)
    gcount, pcount = Counter(gp), Counter(pp)
    exact, matched_counts = 0, {}
    for row in gcount:
        if row in pcount:
            m = min(gcount[row], pcount[row])
            matched_counts[row] = m
            exact += m * n
    partial = greedy_partial(gcount, pcount, matched_counts, n)
    return metrics(0, exact + partial, g_cells, p_cells)


def jaccard_greedy_by_rows(gs, ps, rest_g, rest_p):
    """
    no_column_partial_cell's Jaccard loop for large leftovers, as greedy_partial_by_rows: similarities computed
    once, each round the first maximum in gold-major scan order (the loop's tie clause never fires: a later
    pair in that order is never smaller than the best so far), the matched row and column removed.
    """
    def jaccard(a, b):
        union = len(a | b)
        return len(a & b) / union if union > 0 else 0
    sims = [[jaccard(gs[i], ps[j]) for j in rest_p] for i in rest_g]
    sizes = [[len(gs[i] & ps[j]) for j in rest_p] for i in rest_g]
    partial = 0
    while sims and sims[0]:
        best, bg, bp = 0, -1, -1
        for i, row in enumerate(sims):
            top = max(row)
            if top > best:
                best, bg, bp = top, i, row.index(top)
        if best > 0:
            partial += sizes[bg][bp]
            sims.pop(bg)
            sizes.pop(bg)
            for row in sims:
                row.pop(bp)
            for row in sizes:
                row.pop(bp)
        else:
            break
    return partial


def no_column_partial_cell(gc, gr, pc, pr):
    gs = [set(str(v) for v in r) for r in gr]
    ps = [set(str(v) for v in r) for r in pr]
    g_cells = sum(len(s) for s in gs)
    rest_g, rest_p = list(range(len(gs))), list(range(len(ps)))
    exact, g_done, p_done = 0, [], []
    for i in rest_g:
        for j in rest_p:
            if gs[i] == ps[j]:
                exact += len(gs[i])
                g_done.append(i)
                p_done.append(j)
                break
    for i in sorted(g_done, reverse=True):
        rest_g.remove(i)
    for j in sorted(p_done, reverse=True):
        rest_p.remove(j)  # a predicted row matched twice raises ValueError, as in SQLMorph
    rest_g.sort()
    rest_p.sort()
    if len(rest_g) * len(rest_p) * min(len(rest_g), len(rest_p)) > 2_000_000:
        partial = jaccard_greedy_by_rows(gs, ps, rest_g, rest_p)
        return metrics(0, exact + partial, g_cells, sum(len(s) for s in ps))
    partial = 0
    while rest_g and rest_p:
        best, bg, bp, size = 0, -1, -1, 0
        for i in rest_g:
            for j in rest_p:
                inter, union = gs[i] & ps[j], gs[i] | ps[j]
                if len(union) > 0:
                    sim = len(inter) / len(union)
                    if sim > best or (sim == best and (i, j) < (bg, bp)):
                        best, bg, bp, size = sim, i, j, len(inter)
        if best > 0:
            partial += size
            rest_g.remove(bg)
            rest_p.remove(bp)
        else:
            break
    p_cells = sum(len(s) for s in ps)
    return metrics(0, exact + partial, g_cells, p_cells)


def guarded(fn, *args):
    try:
        return fn(*args)
    except Exception as error:  # SQLMorph lets these escape: the evaluation fails
        return {"raises": f"{type(error).__name__}: {error}"}


def score(conn, pred_sql, gold_sql):
    pred = run(conn, pred_sql)
    gold = run(conn, gold_sql)
    out = {}
    if pred is None or gold is None:
        out["execution_accuracy"] = {"EX": 0}
        for name in ("exact_column_and_exact_cell:penalize", "exact_column_and_exact_cell:no-penalize",
                     "exact_column_and_partial_cell:penalize", "exact_column_and_partial_cell:no-penalize",
                     "no_column_and_partial_cell"):
            out[name] = dict(ZEROS)
        return out
    pc, pr = pred
    gc, gr = gold
    ex = 1 if set(gr) == set(pr) else 0
    out["execution_accuracy"] = {"EX": ex}
    if ex == 1:
        for name in ("exact_column_and_exact_cell:penalize", "exact_column_and_exact_cell:no-penalize",
                     "exact_column_and_partial_cell:penalize", "exact_column_and_partial_cell:no-penalize",
                     "no_column_and_partial_cell"):
            out[name] = dict(ONES)
        return out
    for penalize, tag in ((True, "penalize"), (False, "no-penalize")):
        out[f"exact_column_and_exact_cell:{tag}"] = guarded(exact_column_exact_cell, gc, gr, pc, pr, penalize)
        out[f"exact_column_and_partial_cell:{tag}"] = guarded(exact_column_partial_cell, gc, gr, pc, pr, penalize)
    out["no_column_and_partial_cell"] = guarded(no_column_partial_cell, gc, gr, pc, pr)
    out["columns"] = {"gold": gc, "pred": pc}
    return out


def main():
    request = json.load(sys.stdin)
    connections = {}
    results = []
    for pair in request["pairs"]:
        conn = connections.get(pair["db"])
        if conn is None:
            conn = connections[pair["db"]] = sqlite3.connect(pair["db"])
        results.append(score(conn, pair["pred"], pair["gold"]))
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
