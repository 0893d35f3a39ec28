"""Which gold SQL change their result when SQLite scans unordered rows in reverse, with Python's sqlite3 alone.

Usage: python3 order_dependence.py <questions.json> <gold.sql> <db_root>
Each gold whose database is under db_root runs twice on one read-only connection: as written, then with
PRAGMA reverse_unordered_selects = ON. Results are compared as BIRD's EX compares them (set(rows)). Prints a JSON
list of {"index", "db_id", "float_only"} for every gold whose two results differ; float_only is true when they are
equal once floats are rounded to 12 significant digits (only the summation order's last digits changed).
"""
import json
import os
import sqlite3
import sys


def rounded(rows):
    return {tuple(float(f"{v:.12g}") if isinstance(v, float) else v for v in row) for row in rows}


def main(questions_path, gold_path, db_root):
    with open(questions_path) as file:
        questions = json.load(file)
    with open(gold_path) as file:
        golds = [line.rstrip("\n").split("\t")[0] for line in file if line.strip()]
    flagged = []
    for index, (question, gold) in enumerate(zip(questions, golds)):
        db_id = question["db_id"]
        path = os.path.join(db_root, db_id, f"{db_id}.sqlite")
        if not os.path.exists(path):
            continue
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            as_written = connection.execute(gold).fetchall()
            connection.execute("PRAGMA reverse_unordered_selects = ON")
            reversed_scans = connection.execute(gold).fetchall()
        except sqlite3.Error:
            continue
        finally:
            connection.close()
        if set(as_written) != set(reversed_scans):
            float_only = rounded(as_written) == rounded(reversed_scans)
            flagged.append({"index": index, "db_id": db_id, "float_only": float_only})
    print(json.dumps(flagged))


if __name__ == "__main__":
    main(*sys.argv[1:4])
