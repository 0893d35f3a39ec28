"""Re-runs gold and prediction on each counterexample database outside VES Lens, as BIRD's EX compares them.

Usage: python3 counterexample_oracle.py < cases.json
cases.json: a JSON list of {"database", "gold", "prediction"}. Each database is opened read-only with Python's
sqlite3; both queries are executed and fetched, and EX is set(prediction rows) == set(gold rows), as the
official scripts compute it. Prints a JSON list, one {"separates": bool, "gold_rows": n, "prediction_rows": n}
per case (or {"error": message} when a query fails there). Run with /usr/bin/python3.
"""
import json
import sqlite3
import sys
import urllib.parse


def run(database, gold, prediction):
    uri = "file:" + urllib.parse.quote(database) + "?mode=ro"
    connection = sqlite3.connect(uri, uri=True)
    try:
        cursor = connection.cursor()
        cursor.execute(prediction)
        predicted = cursor.fetchall()
        cursor.execute(gold)
        golden = cursor.fetchall()
    finally:
        connection.close()
    return {"separates": set(predicted) != set(golden), "gold_rows": len(golden), "prediction_rows": len(predicted)}


def main():
    out = []
    for case in json.load(sys.stdin):
        try:
            out.append(run(case["database"], case["gold"], case["prediction"]))
        except Exception as error:  # a witness on which a query fails separates nothing
            out.append({"error": str(error)})
    json.dump(out, sys.stdout)


main()
