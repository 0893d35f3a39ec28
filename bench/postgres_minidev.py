"""mini_dev's PostgreSQL EX and R-VES, as its evaluation scripts compute them with psycopg2, for bench/postgres.ts.

Usage: python3 postgres_minidev.py ex|rves <predictions.json> <gold.sql> <host> <port> <user> <dbname>
Prints a JSON list in file order: EX 0/1 per question, or for rves {"reward", "time_ratio"} per question.
- ex: evaluation_ex.py's run_sqls_parallel: a process pool with one worker per core, each question on a new
  connection (evaluation_utils.execute_sql), set(predicted) == set(gold), any exception 0.
- rves: evaluation_ves.py's iterated_execute_sql on one process (its --num_cpus default, so timings do not compete):
  a correct pair timed 100 times, prediction then gold, each execution on a new connection with execute, fetchall
  and close timed; ratios outside mean +/- 3 sigma (population sigma, as numpy.std) dropped; the mean of the rest;
  the reward buckets.
Differences from the scripts: no func_timeout (it is not a Debian package; none of these queries comes near 30 s),
and statistics.pstdev / sum for numpy's std / mean (the same values up to the last bits).
Run with Debian's /usr/bin/python3, which has python3-psycopg2.
"""
import json
import multiprocessing as mp
import os
import statistics
import sys
import time

import psycopg2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "oracles"))
from minidev_pg_ex import gold_sqls, predicted_sqls  # noqa: E402  (the scripts' own reading of both files)

ITERATIONS = 100


def connect():
    host, port, user, dbname = sys.argv[4:8]
    return psycopg2.connect(host=host, port=int(port), user=user, dbname=dbname)


def execute_model(predicted_sql, gold_sql, idx):
    """evaluation_ex.py's execute_model with evaluation_utils.execute_sql and calculate_ex."""
    try:
        conn = connect()
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


def execute_sql(sql, return_time=False):
    """evaluation_ves.py's execute_sql: the connection opened outside the timed span."""
    conn = connect()
    start_time = time.time()
    cursor = conn.cursor()
    cursor.execute(sql)
    res = cursor.fetchall()
    conn.close()
    exec_time = time.time() - start_time
    return exec_time if return_time else res


def clean_abnormal(values):
    mean = sum(values) / len(values)
    std = statistics.pstdev(values)
    return [x for x in values if mean - 3 * std < x < mean + 3 * std]


def reward_of(time_ratio):
    if time_ratio == 0:
        return 0
    if time_ratio >= 2:
        return 1.25
    if time_ratio >= 1:
        return 1
    if time_ratio >= 0.5:
        return 0.75
    if time_ratio >= 0.25:
        return 0.5
    return 0.25


def iterated_execute_sql(predicted_sql, gold_sql):
    """evaluation_ves.py's iterated_execute_sql inside execute_model's exception handling."""
    try:
        time_ratio = 0
        if set(execute_sql(predicted_sql)) == set(execute_sql(gold_sql)):
            diff_list = []
            for _ in range(ITERATIONS):
                predicted_time = execute_sql(predicted_sql, return_time=True)
                gold_time = execute_sql(gold_sql, return_time=True)
                diff_list.append(gold_time / predicted_time)
            kept = clean_abnormal(diff_list)
            time_ratio = sum(kept) / len(kept)
        return {"reward": reward_of(time_ratio), "time_ratio": time_ratio}
    except Exception:
        return {"reward": 0, "time_ratio": 0}


def main():
    mode, predictions, gold = sys.argv[1:4]
    pairs = list(zip(predicted_sqls(predictions), gold_sqls(gold)))
    if mode == "ex":
        results = []
        pool = mp.Pool(processes=os.cpu_count())
        for i, (predicted_sql, gold_sql) in enumerate(pairs):
            pool.apply_async(execute_model, args=(predicted_sql, gold_sql, i), callback=results.append)
        pool.close()
        pool.join()
        print(json.dumps([r["res"] for r in sorted(results, key=lambda r: r["sql_idx"])]))
    elif mode == "rves":
        print(json.dumps([iterated_execute_sql(p, g) for p, g in pairs]))
    else:
        sys.exit(f"unknown mode {mode}: expected ex or rves")


if __name__ == "__main__":
    main()
