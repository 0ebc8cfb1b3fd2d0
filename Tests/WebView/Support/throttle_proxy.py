"""A loopback TCP proxy that plays a mobile link between a web view and the service, and counts what crosses it.

Each accepted connection gets its own link to the upstream server: every byte waits `rtt / 2` in each direction and
each direction of each connection carries at most `kbit_per_second` (bytes are released in the order they arrived,
never faster than the cap). A new connection also pays its TCP handshake: nothing the client sends leaves before one
full round trip after the connection was accepted. The proxy counts connections, bytes each way and the HTTP requests
it forwarded (method, path, the connection, when it was sent) and, per request, when its reply's first and last bytes
reached the client, so a test can tell how many round trips followed one another before a screen was usable.

It runs its own asyncio loop in a thread, so a test driving a GTK main loop can use it unchanged:

    with ThrottleProxy("127.0.0.1", 8080, rtt_ms=300, kbit_per_second=400) as proxy:
        view.load_uri(proxy.base + "/flows/webViewSignIn?...")
        ...
        stats = proxy.stats()

`rtt_ms=0, kbit_per_second=None` makes a plain counting proxy (no delay, no cap).
"""

import asyncio
import re
import threading
import time

# A request line at the start of what a client sends (the service's clients send no pipelined or chunked bodies
# that could hold one); the counter keeps a little of the previous chunk so a line cut between reads is still found.
REQUEST_LINE = re.compile(rb"(?:^|\r\n)(GET|HEAD|POST|PUT|DELETE|PATCH|OPTIONS) (\S+) HTTP/1\.[01]\r\n")


class Request:
    """One forwarded request: its connection, when it left the client and when its reply reached the client."""

    def __init__(self, connection, method, path, sent):
        self.connection = connection
        self.method = method
        self.path = path
        self.sent = sent
        self.first_byte = None
        self.last_byte = None
        self.reply_bytes = 0
        self.status = None

    def __repr__(self):
        return "Request(%d %s %s %s)" % (self.connection, self.method, self.path, self.status)


class Stats:
    def __init__(self, connections, bytes_up, bytes_down, requests, closed_by_client):
        self.connections = connections  # accepted since the last reset
        self.bytes_up = bytes_up
        self.bytes_down = bytes_down
        self.requests = requests
        self.closed_by_client = closed_by_client  # connections the client ended since the last reset

    def sequential_round_trips(self, until=None):
        """The longest chain of requests each sent only after a reply before it had started to arrive: a first
        page is 1, its scripts 2, what they load 3. Requests sent after `until` (a monotonic time) are not counted."""
        requests = [r for r in self.requests if until is None or r.sent <= until]
        depth = {}
        for request in sorted(requests, key=lambda r: r.sent):
            earlier = [depth[id(q)] for q in requests
                       if id(q) in depth and q.first_byte is not None and q.first_byte <= request.sent]
            depth[id(request)] = 1 + max(earlier, default=0)
        return max(depth.values(), default=0)


class _Direction:
    """One direction of one connection: a queue of chunks, each released at its time (latency plus the cap)."""

    def __init__(self, delay, bytes_per_second, earliest):
        self.delay = delay
        self.bytes_per_second = bytes_per_second
        self.free_at = earliest  # when the link finishes sending what it already holds
        self.queue = asyncio.Queue()

    def put(self, data, now):
        start = max(now, self.free_at)
        busy = len(data) / self.bytes_per_second if self.bytes_per_second else 0.0
        self.free_at = start + busy
        self.queue.put_nowait((self.free_at + self.delay, data))


class ThrottleProxy:
    CHUNK = 4096

    def __init__(self, upstream_host, upstream_port, rtt_ms=0, kbit_per_second=None):
        self.upstream_host = upstream_host
        self.upstream_port = upstream_port
        self.delay = rtt_ms / 2000.0
        self.bytes_per_second = kbit_per_second * 1000 / 8 if kbit_per_second else None
        self.port = None
        self._loop = None
        self._thread = None
        self._server = None
        self._lock = threading.Lock()
        self._tasks = set()
        self._serial = 0
        self.reset()

    @property
    def base(self):
        return "http://127.0.0.1:%d" % self.port

    def reset(self):
        """Forgets what was counted (open connections keep working)."""
        with self._lock:
            self._connections = 0
            self._bytes_up = 0
            self._bytes_down = 0
            self._requests = []
            self._closed_by_client = 0

    def stats(self):
        with self._lock:
            return Stats(self._connections, self._bytes_up, self._bytes_down, list(self._requests),
                         self._closed_by_client)

    # ------------------------------------------------------------------ running

    def start(self):
        ready = threading.Event()

        def run():
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
            self._server = self._loop.run_until_complete(
                asyncio.start_server(self._accept, "127.0.0.1", 0))
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            self._loop.run_forever()
            self._loop.close()

        self._thread = threading.Thread(target=run, name="throttle-proxy", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("the throttling proxy did not start")
        return self

    def stop(self):
        if self._loop is None:
            return

        async def shut():
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.sleep(0)

        asyncio.run_coroutine_threadsafe(shut(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ------------------------------------------------------------------ one connection

    async def _accept(self, client_reader, client_writer):
        task = asyncio.current_task()
        self._tasks.add(task)
        accepted = time.monotonic()
        with self._lock:
            self._connections += 1
            self._serial += 1
            number = self._serial
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(self.upstream_host, self.upstream_port)
        except OSError:
            client_writer.close()
            self._tasks.discard(task)
            return
        # The handshake: the client's first bytes leave one round trip after it connected.
        up = _Direction(self.delay, self.bytes_per_second, accepted + 2 * self.delay)
        down = _Direction(self.delay, self.bytes_per_second, accepted)
        pending = []  # this connection's requests whose replies have not been seen whole

        def on_request(data, carry):
            now = time.monotonic()
            found = []
            for match in REQUEST_LINE.finditer(carry + data):
                if match.end() > len(carry):
                    found.append(Request(number, match.group(1).decode(), match.group(2).decode(), now))
            with self._lock:
                self._bytes_up += len(data)
                self._requests.extend(found)
            pending.extend(found)

        def on_reply(data):
            now = time.monotonic()
            with self._lock:
                self._bytes_down += len(data)
                # Without pipelining, bytes coming back answer the oldest request whose reply is not known whole;
                # a new reply starts at a status line.
                status = re.match(rb"HTTP/1\.[01] (\d{3})", data)
                if status and pending and pending[0].first_byte is not None and len(pending) > 1:
                    pending.pop(0)
                if pending:
                    request = pending[0]
                    if request.first_byte is None:
                        request.first_byte = now
                        if status:
                            request.status = int(status.group(1))
                    request.last_byte = now
                    request.reply_bytes += len(data)

        pumps = [
            asyncio.ensure_future(self._read(client_reader, up, on_request, carry=True, on_end=self._client_closed)),
            asyncio.ensure_future(self._write(up, upstream_writer, None)),
            asyncio.ensure_future(self._read(upstream_reader, down, None, carry=False)),
            asyncio.ensure_future(self._write(down, client_writer, on_reply)),
        ]
        try:
            await asyncio.gather(*pumps)
        except asyncio.CancelledError:
            pass
        finally:
            for pump in pumps:
                pump.cancel()
            for writer in (client_writer, upstream_writer):
                writer.close()
            self._tasks.discard(task)

    def _client_closed(self):
        with self._lock:
            self._closed_by_client += 1

    async def _read(self, reader, direction, on_data, carry, on_end=None):
        tail = b""
        while True:
            try:
                data = await reader.read(self.CHUNK)
            except ConnectionError:
                data = b""
            if not data:
                if on_end is not None:
                    on_end()
                direction.queue.put_nowait((None, None))
                return
            if on_data is not None:
                on_data(data, tail)
                tail = (tail + data)[-64:] if carry else b""
            direction.put(data, time.monotonic())

    async def _write(self, direction, writer, on_delivered):
        while True:
            due, data = await direction.queue.get()
            if data is None:
                if writer.can_write_eof():
                    writer.write_eof()
                return
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
            if on_delivered is not None:
                on_delivered(data)
