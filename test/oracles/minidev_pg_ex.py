"""mini_dev's PostgreSQL EX and Soft-F1, question by question, with psycopg2 as its evaluation does.

Usage: python3 minidev_pg_ex.py <predictions.json> <gold.sql> <host> <port> <user> <dbname>
Prints a JSON list, one [ex, f1] per question in file order. As mini_dev's evaluation_utils.execute_sql: a
new connection per question, the prediction executed and fetched, then the gold, then the connection closed;
EX is set(predicted) == set(gold) and any exception scores 0. Soft-F1 follows evaluation_f1's definition.
Run with Debian's /usr/bin/python3, which has python3-psycopg2.
"""
import json
import sys

import psycopg2

SEPARATOR = "\t----- bird -----\t"


def predicted_sqls(path):
    """The prediction file's SQL in order, split as mini_dev's package_sqls splits it."""
    with open(path) as file:
        data = json.load(file)
    sqls = []
    for _, entry in data.items():
        if isinstance(entry, str):
            parts = entry.split(SEPARATOR)
            sqls.append(parts[0] if len(parts) == 2 else entry.strip())
        else:
            sqls.append(" ")
    return sqls


def gold_sqls(path):
    with open(path) as file:
        return [line.strip().split("\t")[0] for line in file]


def row_match(predicted_row, gold_row):
    total = len(gold_row)
    matches = sum(1 for value in predicted_row if value in gold_row)
    predicted_only = len(predicted_row) - matches
    gold_only = sum(1 for value in gold_row if value not in predicted_row)
    return matches / total, predicted_only / total, gold_only / total


def soft_f1(predicted, gold):
    if not predicted and not gold:
        return 1.0
    set(predicted)
    set(gold)  # both raise on unhashable values, as the official script's sets do
    predicted = list(dict.fromkeys(predicted))
    gold = list(dict.fromkeys(gold))
    matches, predicted_only, gold_only = [], [], []
    for i, gold_row in enumerate(gold):
        if i >= len(predicted):
            matches.append(0)
            gold_only.append(1)
            continue
        m, p, g = row_match(predicted[i], gold_row)
        matches.append(m)
        predicted_only.append(p)
        gold_only.append(g)
    for _ in range(len(predicted) - len(gold)):
        matches.append(0)
        predicted_only.append(1)
        gold_only.append(0)
    tp, fp, fn = sum(matches), sum(predicted_only), sum(gold_only)
    precision = tp / (tp + fp) if tp + fp > 0 else 0
    recall = tp / (tp + fn) if tp + fn > 0 else 0
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0


def score(predicted_sql, gold_sql, connect):
    try:
        connection = connect()
        cursor = connection.cursor()
        cursor.execute(predicted_sql)
        predicted = cursor.fetchall()
        cursor.execute(gold_sql)
        gold = cursor.fetchall()
        connection.close()
    except Exception:
        return [0, 0]
    try:
        ex = 1 if set(predicted) == set(gold) else 0
    except Exception:
        ex = 0
    try:
        f1 = soft_f1(predicted, gold)
    except Exception:
        f1 = 0
    return [ex, f1]


def main():
    predictions, gold, host, port, user, dbname = sys.argv[1:7]

    def connect():
        return psycopg2.connect(host=host, port=int(port), user=user, dbname=dbname)

    print(json.dumps([score(p, g, connect) for p, g in zip(predicted_sqls(predictions), gold_sqls(gold))]))


if __name__ == "__main__":
    main()
