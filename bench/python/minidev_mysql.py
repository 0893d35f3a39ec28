"""mini_dev's MySQL EX and R-VES, as its evaluation scripts compute them with pymysql, for bench/mysql.ts.

Usage: python3 minidev_mysql.py ex|rves <predictions.json> <gold.sql> <unix socket> <user> <database>
The steps are bench/postgres_minidev.py's (evaluation_ex.py's process pool, evaluation_ves.py's loop, its cleaning
and buckets), run here with mini_dev's MySQL connection: pymysql.connect to the one database of the official dump,
a new connection per execution, execute (pymysql reads the whole result), fetchall, close.
Difference from the scripts: func_timeout (not a Debian package) is the server's own limit on each statement,
max_statement_time = 30 s (mini_dev's meta_time_out), set when connecting; a statement past it raises, scored 0.
Run with Debian's /usr/bin/python3, which has python3-pymysql.
"""
import os
import sys

import pymysql

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import postgres_minidev as minidev  # noqa: E402  (the scripts' steps; only the connection differs)


def connect():
    socket, user, database = sys.argv[4:7]
    return pymysql.connect(
        unix_socket=socket, user=user, password="", database=database, init_command="SET SESSION max_statement_time = 30"
    )


minidev.connect = connect

if __name__ == "__main__":
    minidev.main()
