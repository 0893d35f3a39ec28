/**
 * The official timing loops, run by Python's own sqlite3 module as the official scripts run them (pythonTimer.ts
 * starts it with `python3 -I -c`). Embedded as a string so that the bundles in dist/ and the .vsix carry it.
 *
 * Protocol, one JSON object per line. The process first writes `{"ready": true, "python", "sqlite"}`. Each request
 * `{"id", "db", "gold", "pred", "protocol": "ves" | "rves", "iterations", "loop_limit_s"}` gets one reply:
 * `{"id", "pred_s": [...], "gold_s": [...], "results_equal"}` with the times in seconds as `time.time()` gave them,
 * or the same with `"timed_out": true` (the loop outlasted its limit; the times so far), or `{"id", "error",
 * "kind": "memory" | "sqlite" | "request"}`.
 *
 * What it copies from the scripts, line for line:
 * - rves (mini_dev's evaluation_ves.py): the untimed correctness executions first (each on its own connection,
 *   fetchall), then per iteration the prediction, then the gold, each `connect` untimed, then `time.time()`
 *   around `cursor()`, `execute`, `fetchall` and `conn.close()`.
 * - ves (DAMO's evaluation_ves.py): the correctness executions on one connection kept open during the loop, then
 *   per iteration a fresh connection and cursor, untimed, and `time.time()` around `cursor.execute` alone (the
 *   first step); the connection is dropped after the clock stops.
 * - The whole loop shares one limit, as under the scripts' func_timeout(meta_time_out * iterate_num): a watchdog
 *   thread interrupts the running statement (`Connection.interrupt`, no cost to the timed query, unlike a
 *   progress handler) and the loop stops.
 * What it adds: read-only connections (`file:...?mode=ro`), and a cap on the process's address space
 * (RLIMIT_AS) so that a huge fetchall ends in MemoryError, reported, instead of taking the machine's memory.
 *
 * A second kind of request, `{"id", "kind": "fast_block", "gold_db", "gold", "pred_db", "pred", "quantity":
 * "first-row" | "full", "iterations", "first_index", "execution_limit_s"}`, is one block of `--timing fast`
 * (fast.ts): `iterations` iterations, the prediction first in those of even index (`first_index` + i), the gold
 * first in the others, each execution on a fresh read-only connection opened and (first-row) dropped outside the
 * timed span, timed with `time.perf_counter()` as node-sqlite3's timer times it: `first-row` is `cursor.execute`
 * (prepare and the step to the first row, as DAMO times it), `full` is cursor, execute, fetchall and close. Each
 * execution has its own limit (the watchdog interrupts it). Reply: `{"id", "pred_s", "gold_s", "pred_first"}`
 * (seconds; which side ran first in each iteration), the same with `"timed_out": true` and the iterations so far,
 * or an error as above.
 */
export const PYTHON_TIMING_SCRIPT = String.raw`
import io, json, os, sqlite3, sys, threading, time

if os.name == "nt":
    from urllib.request import pathname2url
else:
    # What urllib.request's pathname2url is on POSIX, without the start-up cost of loading http, email and ssl.
    from urllib.parse import quote as pathname2url

def cap_memory(limit_bytes):
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    except Exception:
        pass

class LoopTimeout(Exception):
    pass

class LoopWatch:
    """func_timeout over one loop: past the deadline, interrupt the current connection until the loop stops."""
    def __init__(self):
        self.cond = threading.Condition()
        self.deadline = None
        self.conn = None
        threading.Thread(target=self.run, daemon=True).start()

    def start(self, seconds):
        with self.cond:
            self.deadline = time.monotonic() + seconds
            self.cond.notify()

    def arm(self, seconds):
        # A later deadline than the one the thread waits for needs no wake-up: it finds it when it wakes, so a
        # block of sub-millisecond executions wakes it once, not during every timed execution.
        with self.cond:
            idle = self.deadline is None
            self.deadline = time.monotonic() + seconds
            if idle:
                self.cond.notify()

    def stop(self):
        with self.cond:
            self.deadline = None
            self.conn = None

    def expired(self):
        deadline = self.deadline
        return deadline is not None and time.monotonic() >= deadline

    def run(self):
        with self.cond:
            while True:
                if self.deadline is None:
                    self.cond.wait()
                    continue
                remaining = self.deadline - time.monotonic()
                if remaining > 0:
                    self.cond.wait(remaining)
                    continue
                conn = self.conn
                if conn is not None:
                    try:
                        conn.interrupt()
                    except Exception:
                        pass
                # Again until the loop notices: an interrupt between two statements is forgotten by SQLite.
                self.cond.wait(0.05)

watch = LoopWatch()

def connect(uri):
    conn = sqlite3.connect(uri, uri=True)
    watch.conn = conn
    return conn

def file_uri(path):
    return "file:" + pathname2url(os.path.abspath(path)) + "?mode=ro"

def fetch_all_fresh(uri, sql):
    conn = connect(uri)
    try:
        return conn.cursor().execute(sql).fetchall()
    finally:
        conn.close()

def rves_time(uri, sql):
    # mini_dev: connect untimed; cursor, execute, fetchall and close timed with time.time().
    conn = connect(uri)
    start_time = time.time()
    cursor = conn.cursor()
    cursor.execute(sql)
    res = cursor.fetchall()
    conn.close()
    exec_time = time.time() - start_time
    return exec_time

def ves_time(uri, sql):
    # DAMO: connect and cursor untimed; execute alone timed; the connection goes when the function returns.
    conn = connect(uri)
    cursor = conn.cursor()
    start_time = time.time()
    cursor.execute(sql)
    exec_time = time.time() - start_time
    return exec_time

def time_pair(request):
    uri = file_uri(request["db"])
    pred, gold = request["pred"], request["gold"]
    timed = ves_time if request["protocol"] == "ves" else rves_time
    pred_s, gold_s = [], []
    kept_open = None
    watch.start(request["loop_limit_s"])
    try:
        if request["protocol"] == "ves":
            kept_open = connect(uri)
            cursor = kept_open.cursor()
            predicted_res = cursor.execute(pred).fetchall()
            ground_truth_res = cursor.execute(gold).fetchall()
        else:
            predicted_res = fetch_all_fresh(uri, pred)
            ground_truth_res = fetch_all_fresh(uri, gold)
        results_equal = set(predicted_res) == set(ground_truth_res)
        del predicted_res, ground_truth_res
        for _ in range(request["iterations"]):
            if watch.expired():
                raise LoopTimeout()
            pred_s.append(timed(uri, pred))
            if watch.expired():
                raise LoopTimeout()
            gold_s.append(timed(uri, gold))
        return {"pred_s": pred_s, "gold_s": gold_s, "results_equal": results_equal}
    except (LoopTimeout, sqlite3.OperationalError) as error:
        if isinstance(error, LoopTimeout) or watch.expired():
            pairs = min(len(pred_s), len(gold_s))
            return {"pred_s": pred_s[:pairs], "gold_s": gold_s[:pairs], "timed_out": True}
        raise
    finally:
        watch.stop()
        if kept_open is not None:
            kept_open.close()

def fast_time(uri, sql, quantity):
    # As node-sqlite3's timer in fast.ts: connect untimed; first-row: execute alone, which prepares and steps to
    # the first row (DAMO's span; a fetchone would step once more, to the second row); full: every row and the
    # close, the rows freed after the clock stops as in mini_dev's loop (res lives to the return).
    conn = connect(uri)
    try:
        if quantity == "first-row":
            cursor = conn.cursor()
            start = time.perf_counter()
            cursor.execute(sql)
            return time.perf_counter() - start
        start = time.perf_counter()
        cursor = conn.cursor()
        cursor.execute(sql)
        rows = cursor.fetchall()
        conn.close()
        return time.perf_counter() - start
    finally:
        conn.close()

def fast_block(request):
    pred = (file_uri(request["pred_db"]), request["pred"])
    gold = (file_uri(request["gold_db"]), request["gold"])
    quantity, limit_s = request["quantity"], request["execution_limit_s"]
    pred_s, gold_s, order = [], [], []
    try:
        for i in range(request["iterations"]):
            # fast.ts's order: the prediction first in iterations of even index, the gold first in the others.
            pred_first = (request["first_index"] + i) % 2 == 0
            times = {}
            for side, (uri, sql) in (("pred", pred), ("gold", gold)) if pred_first else (("gold", gold), ("pred", pred)):
                watch.arm(limit_s)
                times[side] = fast_time(uri, sql, quantity)
            pred_s.append(times["pred"])
            gold_s.append(times["gold"])
            order.append(pred_first)
        return {"pred_s": pred_s, "gold_s": gold_s, "pred_first": order}
    except sqlite3.OperationalError:
        if watch.expired():
            return {"pred_s": pred_s, "gold_s": gold_s, "pred_first": order, "timed_out": True}
        raise
    finally:
        watch.stop()

def main():
    cap_memory(int(sys.argv[1]))
    out = sys.stdout
    out.write(json.dumps({"ready": True, "python": sys.version.split()[0], "sqlite": sqlite3.sqlite_version}) + "\n")
    out.flush()
    # Requests are UTF-8 JSON whatever the locale says (-I ignores PYTHONIOENCODING): a non-ASCII literal
    # read in another encoding would time a different query.
    for line in io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8"):
        request_id = None
        try:
            request = json.loads(line)
            request_id = request.get("id")
            reply = fast_block(request) if request.get("kind") == "fast_block" else time_pair(request)
        except MemoryError:
            reply = {"error": "out of memory", "kind": "memory"}
        except sqlite3.Error as error:
            reply = {"error": str(error), "kind": "sqlite"}
        except Exception as error:
            reply = {"error": "%s: %s" % (type(error).__name__, error), "kind": "request"}
        reply["id"] = request_id
        out.write(json.dumps(reply) + "\n")
        out.flush()

main()
`;
