"""mini_dev's SQLite EX as its evaluation_ex.py computes it, for bench/scoringSpeed.ts.

Usage: python3 minidev_sqlite_ex.py <predictions.json> <gold.sql> <db_root> [processes]
Prints a JSON list of EX (0/1) per question in file order. As run_sqls_parallel with evaluation_utils.execute_sql:
a multiprocessing.Pool with one worker per core (or `processes`), one task per question: connect to
<db_root>/<db_id>/<db_id>.sqlite (db_id from the gold line), execute and fetchall the prediction, then the gold,
close, and set(predicted) == set(gold); any exception scores 0.
Differences from the script: no func_timeout (not a Debian package; it would only add a thread per question, so
leaving it out makes this side faster, never slower).
Run with Debian's /usr/bin/python3.
"""
import json
import multiprocessing as mp
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "oracles"))
from minidev_pg_ex import predicted_sqls  # noqa: E402  (mini_dev's package_sqls reading of a prediction file)


def gold_pairs(path, db_root):
    """The gold file's SQL and database path per line, as package_sqls reads a gold file."""
    pairs = []
    with open(path) as file:
        for line in file:
            sql, db_name = line.strip().split("\t")
            pairs.append((sql, os.path.join(db_root, db_name, db_name + ".sqlite")))
    return pairs


def execute_model(predicted_sql, gold_sql, db_path, idx):
    """evaluation_ex.py's execute_model around evaluation_utils.execute_sql and calculate_ex."""
    try:
        conn = sqlite3.connect(db_path)
        cursor = conn.cursor()
        cursor.execute(predicted_sql)
        predicted_res = cursor.fetchall()
        cursor.execute(gold_sql)
        ground_truth_res = cursor.fetchall()
        conn.close()
        res = 1 if set(predicted_res) == set(ground_truth_res) else 0
    except Exception:
        res = 0
    return {"sql_idx": idx, "res": res}


def main():
    predictions, gold, db_root = sys.argv[1:4]
    processes = int(sys.argv[4]) if len(sys.argv) > 4 else os.cpu_count()
    triples = [(p, g, db) for p, (g, db) in zip(predicted_sqls(predictions), gold_pairs(gold, db_root))]
    results = []
    pool = mp.Pool(processes=processes)
    for i, (predicted_sql, gold_sql, db_path) in enumerate(triples):
        pool.apply_async(execute_model, args=(predicted_sql, gold_sql, db_path, i), callback=results.append)
    pool.close()
    pool.join()
    print(json.dumps([r["res"] for r in sorted(results, key=lambda r: r["sql_idx"])]))


if __name__ == "__main__":
    main()
