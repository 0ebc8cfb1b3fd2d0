"""A Janrain customer's own web site on a loopback origin of its own: pages written the way Janrain Registration
sites were (janrain.settings in an inline script, the loader added as #janrainAuthWidget, screens as hidden <div>s
of Janrain Template Language, the site's own copy of Janrain's web-view bridge), served from janrain_site/ with
only the service's address filled in where a Janrain site had Janrain's (`{{CAPTURE_SERVER}}`)."""

import http.server
import pathlib
import socketserver
import threading

PAGES = pathlib.Path(__file__).resolve().parent / "janrain_site"
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css"}


class JanrainSite:
    """Bound at once (the service's settings name the origin before it starts); pages point at `capture_server`."""

    def __init__(self):
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                name = self.path.split("?", 1)[0].lstrip("/") or "index.html"
                path = (PAGES / name).resolve()
                if path.parent != PAGES or not path.is_file():
                    self.send_error(404)
                    return
                body = path.read_text().replace("{{CAPTURE_SERVER}}", site.capture_server).encode()
                self.send_response(200)
                self.send_header("Content-Type", TYPES.get(path.suffix, "application/octet-stream"))
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.origin = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        self.capture_server = ""
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def page(self, name, query=""):
        return "%s/%s%s" % (self.origin, name, ("?" + query) if query else "")

    def pages(self):
        """Every page of the site, as the client's redirect URIs list them."""
        return [self.page(path.name) for path in sorted(PAGES.glob("*.html"))]

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
