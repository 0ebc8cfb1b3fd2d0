"""The service's database as the pytest suites look into it: a SQLite file in the test's work directory (the default),
or a new database on the PostgreSQL server scripts/with-postgres.sh started when CAPTURE_TEST_BACKEND=postgres. The
two backends name columns differently (camelCase, snake_case), so a question is asked in each one's words."""

import os
import sqlite3
import subprocess
import urllib.parse
import uuid

import pytest


class Store:
    def __init__(self, work):
        self.backend = os.environ.get("CAPTURE_TEST_BACKEND") or "sqlite"
        if self.backend == "postgres":
            server = os.environ.get("CAPTURE_TEST_POSTGRES")
            if not server:
                pytest.fail("CAPTURE_TEST_BACKEND=postgres needs CAPTURE_TEST_POSTGRES: run the suite through "
                            "scripts/with-postgres.sh (make test does)", pytrace=False)
            name = "capture_pytest_" + uuid.uuid4().hex
            self._psql(server, "CREATE DATABASE %s" % name)
            parts = urllib.parse.urlsplit(server)
            # What --db takes: the server's URL with the new database, over plain TCP (the test server has no TLS).
            self.location = urllib.parse.urlunsplit(parts._replace(path="/" + name, query="sslmode=disable"))
            self._admin = urllib.parse.urlunsplit(parts._replace(path="/" + name, query=""))
        elif self.backend == "sqlite":
            self.location = str(work / "capture.sqlite")
        else:
            pytest.fail("CAPTURE_TEST_BACKEND is sqlite or postgres, not %r" % self.backend, pytrace=False)

    @property
    def is_sqlite(self):
        return self.backend == "sqlite"

    def rows(self, sqlite_sql, postgres_sql, *params):
        """The rows (tuples of text, or of SQLite's values) of one query; `?` marks parameters in both."""
        if self.is_sqlite:
            with sqlite3.connect(self.location) as db:
                return db.execute(sqlite_sql, params).fetchall()
        # psql's own quoting (:'pN') keeps the values out of the SQL text.
        sql, variables = postgres_sql, []
        for index, value in enumerate(params):
            sql = sql.replace("?", ":'p%d'" % index, 1)
            variables += ["-v", "p%d=%s" % (index, value)]
        output = self._psql(self._admin, sql, *variables)
        return [tuple(line.split("\x1f")) for line in output.splitlines() if line]

    def dump(self):
        """Everything the database holds, as SQL text."""
        if self.is_sqlite:
            with sqlite3.connect(self.location) as db:
                return "\n".join(db.iterdump())
        return subprocess.run(["pg_dump", "--no-owner", self._admin], check=True, capture_output=True,
                              text=True).stdout

    @staticmethod
    def _psql(url, sql, *variables):
        # The command goes through stdin: psql expands :'name' variables there, not in -c.
        return subprocess.run(
            ["psql", "-X", "-q", "-A", "-t", "-F", "\x1f", "-v", "ON_ERROR_STOP=1", *variables, url],
            input=sql, check=True, capture_output=True, text=True).stdout
