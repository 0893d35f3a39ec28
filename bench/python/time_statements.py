"""Times SQL statements with Python's sqlite3, as the official BIRD scripts run them: a fresh read-only
connection per execution, execute + fetchall, perf_counter; a statement past the limit is interrupted.
Reads JSON lines {"db": path, "sql": text, "limit": seconds} on stdin; writes {"seconds": t | null, "error": ...}."""
import json
import sqlite3
import sys
import time

for line in sys.stdin:
    request = json.loads(line)
    limit = float(request.get("limit", 60))
    con = sqlite3.connect(f"file:{request['db']}?mode=ro", uri=True)
    start = time.perf_counter()
    con.set_progress_handler(lambda: 1 if time.perf_counter() - start > limit else 0, 10000)
    try:
        con.execute(request["sql"]).fetchall()
        answer = {"seconds": time.perf_counter() - start}
    except Exception as error:  # noqa: BLE001 - any failure is an answer, the loop goes on
        answer = {"seconds": None, "error": str(error)}
    finally:
        con.close()
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
