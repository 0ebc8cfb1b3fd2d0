"""One capture-server process for a test module that needs more than the suite's one (conftest.py): its own work
directory, database (Store: SQLite or PostgreSQL), settings copy changed by `configure(service_dict, settings_dir)`,
clients registered with capturectl as an operator registers them, and a clean stop."""

import json
import os
import pathlib
import shutil
import subprocess
import tempfile

from capture_process import die_with_parent, free_port, stop, wait_until_ready
from capture_store import Store


class CaptureInstance:
    def __init__(self, server_bin, capturectl, root, test_settings, name, configure=None, env_extra=None):
        self.capturectl = capturectl
        self.root = root
        self.work = pathlib.Path(tempfile.mkdtemp(prefix="capture-%s-" % name))
        self.store = Store(self.work)
        self.settings = test_settings(self.work)
        if configure is not None:
            service = json.loads((self.settings / "service.json").read_text())
            configure(service, self.settings)
            (self.settings / "service.json").write_text(json.dumps(service))
        self.env = {key: value for key, value in os.environ.items() if not key.startswith("CAPTURE_")}
        self.env.update(env_extra or {})
        self.server_bin = server_bin
        self.process = None
        self.log_path = self.work / "server.log"
        self.port = free_port()
        self.base = "http://127.0.0.1:%d" % self.port

    def add_client(self, client_id, features, extra=()):
        """A confidential client with Janrain's feature names; answers its secret (printed once)."""
        command = [str(self.capturectl), "client", "add", client_id, "--confidential", "--name", client_id]
        for feature in features:
            command += ["--feature", feature]
        command += list(extra) + ["--db", self.store.location, "--settings", str(self.settings), "--json"]
        added = subprocess.run(command, cwd=str(self.root), env=self.env, capture_output=True, text=True, timeout=60)
        assert added.returncode == 0, "capturectl client add %s: %s %s" % (client_id, added.stdout, added.stderr)
        return json.loads(added.stdout)["client_secret"]

    def start(self):
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [str(self.server_bin), "--host", "127.0.0.1", "--port", str(self.port), "--db", self.store.location,
                 "--settings", str(self.settings)], cwd=str(self.root), env=self.env, stdout=log,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
        wait_until_ready(self.process, self.base, self.log)
        return self

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def close(self):
        if self.process is not None:
            stop(self.process)
            self.process = None
        shutil.rmtree(self.work, ignore_errors=True)
