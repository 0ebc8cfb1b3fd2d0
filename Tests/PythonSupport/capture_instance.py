"""A whole instance of the service for tests that need more than the suite's one (an old app and a new one): its own
work directory, database (Store: SQLite file or PostgreSQL database), copy of Settings/ changed by
`configure(service_dict, settings_dir)`, confidential clients registered as an operator registers them (capturectl,
Janrain's feature names), the running capture-server, and a clean stop."""

import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import httpx

from capture_process import die_with_parent, free_port, stop, wait_until_ready
from capture_store import Store


class CaptureInstance:
    def __init__(self, server_bin, capturectl, root, test_settings, name, configure=None, env_extra=None):
        self.capturectl_bin = capturectl
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
        # Secrets of the clients `add_client` registered, by id.
        self.secrets = {}

    def capturectl_command(self, *args):
        return [str(self.capturectl_bin), *args, "--db", self.store.location, "--settings", str(self.settings)]

    def capturectl(self, *args, env=None, timeout=300):
        return subprocess.run(self.capturectl_command(*args), cwd=str(self.root), env=env or self.env,
                              capture_output=True, text=True, timeout=timeout)

    def add_client(self, client_id, features, extra=()):
        """A confidential client with Janrain's feature names; answers its secret (printed once)."""
        command = ["client", "add", client_id, "--confidential", "--name", client_id]
        for feature in features:
            command += ["--feature", feature]
        added = self.capturectl(*command, *extra, "--json", timeout=60)
        assert added.returncode == 0, "capturectl client add %s: %s %s" % (client_id, added.stdout, added.stderr)
        self.secrets[client_id] = json.loads(added.stdout)["client_secret"]
        return self.secrets[client_id]

    def start(self):
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [str(self.server_bin), "--host", "127.0.0.1", "--port", str(self.port), "--db", self.store.location,
                 "--settings", str(self.settings)], cwd=str(self.root), env=self.env, stdout=log,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
        wait_until_ready(self.process, self.base, self.log)
        return self

    def post(self, path, data, timeout=60):
        return httpx.post(self.base + path, data=data, timeout=timeout)

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


def started_instance(root, server_bin, capturectl, test_settings, name, clients):
    """An instance with `clients` ({id: [features]}) registered (their secrets in `secrets`), started."""
    instance = CaptureInstance(server_bin, capturectl, root, test_settings, name)
    try:
        for client_id, features in clients.items():
            instance.add_client(client_id, features)
        return instance.start()
    except BaseException:
        instance.close()
        raise
