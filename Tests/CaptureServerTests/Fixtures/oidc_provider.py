"""A real OpenID Connect provider (PyPI's oidc-provider-mock, built on Authlib) on loopback for the tests.

Prints its port, serves until its standard input closes (the test's stop()), then exits. The issuer is
http://localhost:<port>. Nonces are required, as a provider in the field would have them.
"""
import sys

import oidc_provider_mock


def main() -> None:
    with oidc_provider_mock.run_server_in_thread(port=0, require_nonce=True) as server:
        print(server.server_port, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
