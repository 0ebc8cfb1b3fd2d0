"""Real servers on 127.0.0.1 for CaptureOutboundTests, and a mail reader.

    loopback_servers.py smtp MAILDIR [starttls|smtps CERT KEY [PASSWORD]]
        aiosmtpd delivering into a maildir; RCPT reject@… gets 550 5.1.1, busy@… 450 4.2.1 (both about the
        recipient), later@… 451 4.3.0, relaydenied@… 554 5.7.1 (both about the relay, not the recipient). A
        message to together-N-…@ is answered only once N such messages are in flight at the same time (451 after
        4 s otherwise). With starttls it offers and requires STARTTLS; with smtps it speaks TLS from the first
        byte. With PASSWORD it requires AUTH (after TLS) as user "capture" with that password, and answers any
        other login with 535 5.7.8.
    loopback_servers.py http DIRECTORY [CERT KEY]
        http.server (https with CERT KEY) for DIRECTORY, plus /stream/N (N bytes, no Content-Length) and
        POST /echo (the body and X-Test header back)
    loopback_servers.py read FILE...
        prints the delivered messages as a JSON array, decoded by Python's email package

The servers listen on a port the kernel picks and print it as their first line. They stop when killed or, so a
crashed test run leaves nothing behind, as soon as the process that started them is gone.
"""
import asyncio
import json
import os
import sys
import threading
import time


def die_with_parent():
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(0)

    # The test stops a server by closing its standard input: no signal sent by process id, which a busy machine
    # may already have handed to another process.
    def stdin_closed():
        sys.stdin.buffer.read()
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()
    threading.Thread(target=stdin_closed, daemon=True).start()


def tls_context(cert, key):
    import ssl

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def smtp(maildir, mode=None, cert=None, key=None, password=None):
    from aiosmtpd.handlers import Mailbox
    from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

    class RejectingMailbox(Mailbox):
        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            if address.lower().startswith("reject@"):
                return "550 5.1.1 no such user"
            if address.lower().startswith("later@"):
                return "451 4.3.0 try again later"
            if address.lower().startswith("relaydenied@"):
                return "554 5.7.1 Relay access denied"
            if address.lower().startswith("busy@"):
                return "450 4.2.1 mailbox busy, try again later"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            together = [address for address in envelope.rcpt_tos if address.startswith("together-")]
            if together:
                count = int(together[0].split("-")[1])
                async with arrived:
                    arrived.count += 1
                    arrived.notify_all()
                    try:
                        await asyncio.wait_for(arrived.wait_for(lambda: arrived.count >= count), timeout=4)
                    except asyncio.TimeoutError:
                        return "451 4.3.0 only %d of %d arrived together" % (arrived.count, count)
            return await super().handle_DATA(server, session, envelope)

    # Maildir(create=True) makes the subfolders only when the folder itself is missing; the test made the folder.
    for folder in ("tmp", "new", "cur"):
        os.makedirs(os.path.join(maildir, folder), exist_ok=True)
    handler = RejectingMailbox(maildir)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    arrived = asyncio.Condition()
    arrived.count = 0
    # An explicit hostname: aiosmtpd's default asks DNS for this machine's name, which can take seconds.
    options = {}
    if mode == "starttls":
        options = {"tls_context": tls_context(cert, key), "require_starttls": True}
    if password is not None:
        def authenticator(server, session, envelope, mechanism, auth_data):
            # Not handled here, so aiosmtpd answers itself: 235, or 535 5.7.8 for a failed login.
            ok = isinstance(auth_data, LoginPassword) and auth_data.login == b"capture" \
                and auth_data.password == password.encode()
            return AuthResult(success=ok, handled=False)

        # smtps is TLS from the first byte, which aiosmtpd does not see: it would refuse AUTH as if in the clear.
        options.update(authenticator=authenticator, auth_required=True, auth_require_tls=mode == "starttls")
    server = loop.run_until_complete(loop.create_server(
        lambda: SMTP(handler, hostname="localhost", **options), "127.0.0.1", 0,
        ssl=tls_context(cert, key) if mode == "smtps" else None))
    print(server.sockets[0].getsockname()[1], flush=True)
    loop.run_forever()


def http(directory, cert=None, key=None):
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=directory, **kwargs)

        def do_GET(self):
            if not self.path.startswith("/stream/"):
                return super().do_GET()
            remaining = int(self.path.split("/")[2])
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.end_headers()  # no Content-Length: HTTP/1.0, the body ends when the connection closes
            try:
                while remaining > 0:
                    count = min(remaining, 4096)
                    self.wfile.write(b"x" * count)
                    remaining -= count
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading at its cap, as it should

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(201)
            self.send_header("Content-Type", self.headers.get("Content-Type", "application/octet-stream"))
            self.send_header("X-Echo-Test", self.headers.get("X-Test", ""))
            self.send_header("X-Echo-Method", self.command)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if cert:
        server.socket = tls_context(cert, key).wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def read(*paths):
    print(json.dumps([decoded(path) for path in paths]))


def decoded(path):
    import email
    import email.policy

    with open(path, "rb") as file:
        message = email.message_from_binary_file(file, policy=email.policy.default)
    plain = message.get_body(("plain",))
    html = message.get_body(("html",))
    return {
        "from": str(message["From"]),
        "to": str(message["To"]),
        "subject": str(message["Subject"]),
        "message_id": str(message["Message-ID"]),
        "date": str(message["Date"]),
        "content_type": message.get_content_type(),
        "mail_from": str(message["X-MailFrom"]),
        "rcpt_to": str(message["X-RcptTo"]),
        "text": plain.get_content() if plain is not None else None,
        "html": html.get_content() if html is not None else None,
        "defects": [type(defect).__name__ for part in message.walk() for defect in part.defects],
    }


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "read":
        read(*arguments)
    else:
        die_with_parent()
        {"smtp": smtp, "http": http}[command](*arguments)
