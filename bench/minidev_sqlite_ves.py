"""The official SQLite efficiency scores as the scripts compute them, for bench/timing.mjs: the reference column.

Usage: python3 minidev_sqlite_ves.py <predictions.json> <gold.sql> <db_root>
Prints one JSON object: {"rves", "ves", "count", "rves_correct", "ves_correct"} over the questions whose database
is in db_root (bench/timing.mjs links only superhero and toxicology; VES Lens skips the others the same way).
- rves: mini_dev's evaluation_ves.py: the pair run once each on its own connection (execute_sql), set(pred) ==
  set(gold), then 100 iterations of prediction then gold, each execution on a new connection with connect untimed
  and cursor, execute, fetchall and close timed with time.time(); ratios outside mean +/- 3 sigma (numpy.std)
  dropped; the mean of the rest; the reward buckets; sqrt(reward) * 100 averaged; any exception 0.
- ves: DAMO's evaluation_ves.py: the pair run on one connection kept open, set(pred) == set(gold), then 100
  iterations, each execution on a new connection with cursor.execute alone timed; the same cleaning; sqrt(mean)
  * 100 averaged. Both queries on the question's database (mini-dev's files name the same db_id for both).
Differences from the scripts: no func_timeout (it is not installed here; none of these pairs comes near
3000 s) and no multiprocessing pool (its default is one worker, so the loop runs alone either way).
"""
import json
import math
import os
import sqlite3
import sys
import time

import numpy as np

ITERATIONS = 100


def clean_abnormal(values):
    values = np.asarray(values)
    mean = np.mean(values, axis=0)
    std = np.std(values, axis=0)
    return [x for x in values if mean - 3 * std < x < mean + 3 * std]


def rves_execute(sql, db_path, return_time=False):
    conn = sqlite3.connect(db_path)
    start_time = time.time()
    cursor = conn.cursor()
    cursor.execute(sql)
    res = cursor.fetchall()
    conn.close()
    exec_time = time.time() - start_time
    return exec_time if return_time else res


def rves_reward(predicted_sql, gold_sql, db_path):
    diff_list = []
    time_ratio = 0
    if set(rves_execute(predicted_sql, db_path)) == set(rves_execute(gold_sql, db_path)):
        for _ in range(ITERATIONS):
            predicted_time = rves_execute(predicted_sql, db_path, return_time=True)
            gold_time = rves_execute(gold_sql, db_path, return_time=True)
            diff_list.append(gold_time / predicted_time)
        kept = clean_abnormal(diff_list)
        time_ratio = sum(kept) / len(kept)
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


def ves_execute(sql, db_path):
    conn = sqlite3.connect(db_path)
    cursor = conn.cursor()
    start_time = time.time()
    cursor.execute(sql)
    exec_time = time.time() - start_time
    return exec_time


def ves_ratio(predicted_sql, gold_sql, db_path):
    conn = sqlite3.connect(db_path)
    diff_list = []
    cursor = conn.cursor()
    cursor.execute(predicted_sql)
    predicted_res = cursor.fetchall()
    cursor.execute(gold_sql)
    gold_res = cursor.fetchall()
    time_ratio = 0
    if set(predicted_res) == set(gold_res):
        for _ in range(ITERATIONS):
            predicted_time = ves_execute(predicted_sql, db_path)
            gold_time = ves_execute(gold_sql, db_path)
            diff_list.append(gold_time / predicted_time)
        kept = clean_abnormal(diff_list)
        time_ratio = sum(kept) / len(kept)
    return time_ratio


def guarded(function, *args):
    try:
        return function(*args)
    except Exception:
        return 0


def main():
    predictions_path, gold_path, db_root = sys.argv[1:4]
    predicted = []
    for value in json.load(open(predictions_path)).values():
        if isinstance(value, str):
            parts = value.split("\t----- bird -----\t")
            predicted.append(parts[0] if len(parts) == 2 else value.strip())
        else:
            predicted.append(" ")
    pairs = []
    for index, line in enumerate(open(gold_path).readlines()):
        gold_sql, db_id = line.strip().split("\t")
        db_path = os.path.join(db_root, db_id, db_id + ".sqlite")
        if os.path.exists(db_path):
            pairs.append((predicted[index], gold_sql, db_path))
    # Two programs, as the scripts are: all of mini_dev's R-VES, then all of DAMO's VES.
    rewards = [guarded(rves_reward, *pair) for pair in pairs]
    ratios = [guarded(ves_ratio, *pair) for pair in pairs]
    print(
        json.dumps(
            {
                "rves": sum(math.sqrt(r) * 100 for r in rewards) / len(pairs),
                "ves": sum(math.sqrt(r) * 100 for r in ratios) / len(pairs),
                "count": len(pairs),
                "rves_correct": sum(1 for r in rewards if r != 0),
                "ves_correct": sum(1 for r in ratios if r != 0),
            }
        )
    )


main()
