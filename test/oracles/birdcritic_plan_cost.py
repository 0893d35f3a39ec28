"""BIRD-Critic's PostgreSQL efficiency comparison, question by question, with psycopg2 as its evaluation does.

Usage: python3 birdcritic_plan_cost.py <predictions.json> <gold.sql> <host> <port> <user> <dbname>
Prints a JSON list, one [gold_cost, pred_cost, pred_cheaper] per question in file order. As BIRD-Critic's
postgresql_test_utils.performance_compare_by_qep: each side's statement is given to `EXPLAIN (FORMAT JSON)` in a
transaction that is rolled back, its root plan's "Total Cost" is the side's cost, and the solution (here the
prediction) scores 1 when its cost is strictly below the reference's (here the gold). A side whose EXPLAIN fails
(an error, or an entry of several statements whose last returns no plan) is null here (BIRD-Critic prints the
error and counts it 0), and so is the verdict.
Run with Debian's /usr/bin/python3, which has python3-psycopg2.
"""
import json
import sys

import psycopg2

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from minidev_pg_ex import gold_sqls, predicted_sqls  # noqa: E402


def total_cost(connection, sql):
    cursor = connection.cursor()
    try:
        cursor.execute("BEGIN")
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}")
        explain = cursor.fetchall()[0][0]
        if isinstance(explain, str):
            explain = json.loads(explain)
        return float(explain[0]["Plan"].get("Total Cost", 0.0))
    except Exception:  # noqa: BLE001 - as BIRD-Critic's: a side that cannot be explained has no cost
        return None
    finally:
        connection.rollback()
        cursor.close()


def main():
    predictions, gold_file, host, port, user, dbname = sys.argv[1:7]
    connection = psycopg2.connect(host=host, port=port, user=user, dbname=dbname)
    results = []
    for predicted, gold in zip(predicted_sqls(predictions), gold_sqls(gold_file)):
        gold_cost = total_cost(connection, gold)
        pred_cost = total_cost(connection, predicted)
        cheaper = None if gold_cost is None or pred_cost is None else int(pred_cost < gold_cost)
        results.append([gold_cost, pred_cost, cheaper])
    connection.close()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
