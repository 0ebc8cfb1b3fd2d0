"""Starts the tests' Python fixture servers (the OpenID Connect provider, the SMTP and HTTP servers) by forking.

One launcher runs per test process (FixtureServer.swift). It listens on a loopback port, which it prints; each
connection asks for one server with a line of JSON, {"script": path, "arguments": [...]}. The launcher imports the
script's modules once (the provider's Flask and Authlib take most of a second to import) and forks a child that
runs the script as `__main__`, with the connection as its standard input and output: the script prints its port
into the connection and serves until the connection closes, as it would with a pipe. The launcher exits when its own
standard input closes (the test process went away); each child ends when its connection does.
"""
import json
import os
import runpy
import signal
import socket
import sys
import threading
import traceback

loaded = set()


def launch(connection, listener, log_directory):
    request = json.loads(connection.makefile("rb").readline())
    script, arguments = request["script"], request["arguments"]
    if script not in loaded:
        # The script's top level (its imports) in the launcher, so every child starts with them imported.
        runpy.run_path(script, run_name="fixture")
        loaded.add(script)
    if os.fork():
        connection.close()
        return
    listener.close()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    descriptor = connection.fileno()
    os.dup2(descriptor, 0)
    os.dup2(descriptor, 1)
    name = "fixture-%s-%d.log" % (os.path.basename(script), os.getpid())
    log = os.open(os.path.join(log_directory, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 2)
    sys.stdin = open(0, "r", closefd=False)
    sys.stdout = open(1, "w", buffering=1, closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)
    sys.argv = [script] + arguments
    try:
        runpy.run_path(script, run_name="__main__")
    except BaseException:
        # Before the port line, the test reads this as the reason the server did not start.
        print("".join(traceback.format_exc()), flush=True)
        traceback.print_exc()
    finally:
        os._exit(0)


def main():
    log_directory = sys.argv[1]
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped as they exit
    listener = socket.create_server(("127.0.0.1", 0))
    print(listener.getsockname()[1], flush=True)

    def stdin_closed():
        sys.stdin.buffer.read()
        os._exit(0)

    threading.Thread(target=stdin_closed, daemon=True).start()
    while True:
        connection, _ = listener.accept()
        try:
            launch(connection, listener, log_directory)
        except Exception:
            connection.sendall(("launcher: " + traceback.format_exc()).encode())
            connection.close()


if __name__ == "__main__":
    main()
