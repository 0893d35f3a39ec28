"""mini_dev's MySQL EX and Soft-F1, question by question, with pymysql as its evaluation does.

Usage: python3 minidev_mysql_ex.py <predictions.json> <gold.sql> <unix socket> <user> <database> [skip]
Prints a JSON list, one [ex, f1] per question in file order (null for the positions listed in `skip`, comma
separated: the caller's timeouts, which mini_dev's func_timeout scores 0 without running them to their end). As mini_dev's evaluation_utils.execute_sql for
MySQL: a new pymysql connection per question, the prediction executed and fetched, then the gold, then the
connection closed; EX is set(predicted) == set(gold) and any exception scores 0 (minidev_pg_ex.score, the same
steps with another driver). Run with Debian's /usr/bin/python3, which has python3-pymysql.
"""
import json
import os
import sys

import pymysql

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from minidev_pg_ex import gold_sqls, predicted_sqls, score  # noqa: E402


def main():
    predictions, gold, socket, user, database = sys.argv[1:6]
    skip = {int(i) for i in sys.argv[6].split(",") if i} if len(sys.argv) > 6 else set()

    def connect():
        return pymysql.connect(unix_socket=socket, user=user, password="", database=database)

    pairs = zip(predicted_sqls(predictions), gold_sqls(gold))
    print(json.dumps([None if i in skip else score(p, g, connect) for i, (p, g) in enumerate(pairs)]))


if __name__ == "__main__":
    main()
