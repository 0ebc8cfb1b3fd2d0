"""A whole instance of the service for tests that need more than one (an old app and a new one): its own work
directory, database (SQLite file or PostgreSQL database, as Store chooses), copy of Settings/, confidential clients
registered as an operator registers them (capturectl, Janrain's feature names), and the running capture-server."""

import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import httpx

from capture_process import die_with_parent, free_port, stop, wait_until_ready
from capture_store import Store


class Instance:
    def __init__(self, root, server_bin, capturectl, settings_for, prefix, clients):
        self.root = root
        self.capturectl_bin = capturectl
        self.work = pathlib.Path(tempfile.mkdtemp(prefix=prefix))
        self.store = Store(self.work)
        self.settings = settings_for(self.work)
        self.env = {key: value for key, value in os.environ.items() if not key.startswith("CAPTURE_")}
        self.secrets = {}
        for client_id, features in clients.items():
            command = ["client", "add", client_id, "--confidential", "--name", client_id]
            for feature in features:
                command += ["--feature", feature]
            added = self.capturectl(*command, "--json")
            assert added.returncode == 0, "capturectl client add %s: %s %s" % (client_id, added.stdout, added.stderr)
            self.secrets[client_id] = json.loads(added.stdout)["client_secret"]
        self.port = free_port()
        self.base = "http://127.0.0.1:%d" % self.port
        self.log_path = self.work / "server.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [str(server_bin), "--host", "127.0.0.1", "--port", str(self.port), "--db", self.store.location,
                 "--settings", str(self.settings)], cwd=str(root), env=self.env, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
        wait_until_ready(self.process, self.base, self.log)

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def capturectl_command(self, *args):
        return [str(self.capturectl_bin), *args, "--db", self.store.location, "--settings", str(self.settings)]

    def capturectl(self, *args, env=None, timeout=300):
        return subprocess.run(self.capturectl_command(*args), cwd=str(self.root), env=env or self.env,
                              capture_output=True, text=True, timeout=timeout)

    def post(self, path, data, timeout=60):
        return httpx.post(self.base + path, data=data, timeout=timeout)

    def close(self):
        stop(self.process)
        shutil.rmtree(self.work, ignore_errors=True)
