"""A platform authenticator in software, as a native host's passkey API would act: it takes the WebAuthn JSON
options the page hands over the bridge, makes or uses a discoverable credential, and answers with the JSON
serialisation (RegistrationResponseJSON / AuthenticationResponseJSON) that iOS's and Android's APIs give an app.

The structures (authenticator data, attested credential data, attestation objects, client data, COSE keys) are
built by Yubico's `fido2` library; the keys and signatures are `cryptography`'s. Nothing here is verified: the
service under test does that.
"""

import base64
import hashlib
import json
import os

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from fido2 import cose
from fido2.webauthn import (
    AttestationObject,
    AttestedCredentialData,
    AuthenticatorData,
    CollectedClientData,
)

FLAGS = AuthenticatorData.FLAG


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Credential:
    def __init__(self, algorithm: int, rp_id: str, user_handle: bytes, user_name: str):
        self.id = os.urandom(20)
        self.algorithm = algorithm
        self.rp_id = rp_id
        self.user_handle = user_handle
        self.user_name = user_name
        self.counter = 0
        if algorithm == -7:
            self.key = ec.generate_private_key(ec.SECP256R1())
            self.cose = cose.ES256.from_cryptography_key(self.key.public_key())
        elif algorithm == -257:
            self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            self.cose = cose.RS256.from_cryptography_key(self.key.public_key())
        elif algorithm == -8:
            self.key = ed25519.Ed25519PrivateKey.generate()
            self.cose = cose.EdDSA.from_cryptography_key(self.key.public_key())
        else:
            raise ValueError(f"unsupported algorithm {algorithm}")

    def sign(self, data: bytes) -> bytes:
        if self.algorithm == -7:
            return self.key.sign(data, ec.ECDSA(hashes.SHA256()))
        if self.algorithm == -257:
            return self.key.sign(data, padding.PKCS1v15(), hashes.SHA256())
        return self.key.sign(data)


class SoftAuthenticator:
    """Holds discoverable credentials by relying party, like a platform keychain.

    `counting`: whether the sign counter moves (synced passkeys keep it at 0). `attestation`: "none" or "packed"
    (self-attestation). `user_verified`: what the UV flag says."""

    def __init__(self, algorithm: int = -7, counting: bool = True, attestation: str = "none"):
        self.algorithm = algorithm
        self.counting = counting
        self.attestation = attestation
        self.user_verified = True
        self.credentials: list[Credential] = []

    def flags(self, extra: int = 0) -> int:
        flags = FLAGS.UP | FLAGS.BE | FLAGS.BS | extra
        if self.user_verified:
            flags |= FLAGS.UV
        return flags

    def create(self, options: dict, origin: str) -> dict:
        """navigator.credentials.create / ASAuthorizationPlatformPublicKeyCredentialProvider's registration."""
        rp_id = options["rp"]["id"]
        algorithms = [p["alg"] for p in options["pubKeyCredParams"]]
        algorithm = self.algorithm if self.algorithm in algorithms else algorithms[0]
        excluded = {unb64url(c["id"]) for c in options.get("excludeCredentials", [])}
        if any(c.id in excluded for c in self.credentials):
            raise ValueError("InvalidStateError: a credential of this authenticator is excluded")
        credential = Credential(algorithm, rp_id, unb64url(options["user"]["id"]), options["user"]["name"])
        if self.counting:
            credential.counter = 1
        client_data = CollectedClientData.create(
            type="webauthn.create", challenge=unb64url(options["challenge"]), origin=origin)
        attested = AttestedCredentialData.create(bytes(16), credential.id, credential.cose)
        auth_data = AuthenticatorData.create(
            hashlib.sha256(rp_id.encode()).digest(), self.flags(FLAGS.AT), credential.counter, attested)
        statement = {}
        if self.attestation == "packed":
            statement = {"alg": algorithm, "sig": credential.sign(bytes(auth_data) + client_data.hash)}
        attestation = AttestationObject.create(self.attestation, auth_data, statement)
        self.credentials.append(credential)
        return serialised(credential, client_data, attestationObject=b64url(bytes(attestation)),
                          transports=["internal", "hybrid"])

    def get(self, options: dict, origin: str, credential: Credential | None = None) -> dict:
        """navigator.credentials.get / the platform's assertion: a listed credential, else a discoverable one."""
        rp_id = options["rpId"]
        allowed = {unb64url(c["id"]) for c in options.get("allowCredentials", [])}
        if credential is None:
            candidates = [c for c in self.credentials if c.rp_id == rp_id and (not allowed or c.id in allowed)]
            if not candidates:
                raise ValueError("NotAllowedError: no credential for this relying party")
            credential = candidates[-1]
        if self.counting:
            credential.counter += 1
        client_data = CollectedClientData.create(
            type="webauthn.get", challenge=unb64url(options["challenge"]), origin=origin)
        auth_data = AuthenticatorData.create(hashlib.sha256(rp_id.encode()).digest(), self.flags(), credential.counter)
        signature = credential.sign(bytes(auth_data) + client_data.hash)
        return serialised(credential, client_data, authenticatorData=b64url(bytes(auth_data)),
                          signature=b64url(signature), userHandle=b64url(credential.user_handle))


def serialised(credential: Credential, client_data: CollectedClientData, **response) -> dict:
    """The credential as the platform's JSON serialisation carries it."""
    return {
        "id": b64url(credential.id),
        "rawId": b64url(credential.id),
        "type": "public-key",
        "authenticatorAttachment": "platform",
        "clientExtensionResults": {},
        "response": dict(clientDataJSON=b64url(bytes(client_data)), **response),
    }


def answer(authenticator: SoftAuthenticator, kind: str, options: dict, origin: str) -> str:
    """The JSON text a host hands back to the page for an `onCapturePasskeyRequest`."""
    result = authenticator.create(options, origin) if kind == "create" else authenticator.get(options, origin)
    return json.dumps(result)
