"""Password hashes of every format a Janrain export carries, made by tools nobody here wrote: passlib (Debian's
python3-passlib, with argon2-cffi for argon2), `mkpasswd` (Debian's whois), `openssl passwd`, and Python's hashlib
for the plain and salted digests passlib lacks (computed from each format's definition in
docs/adr/0067-legacy-password-hashes.md). Each case is the record's `password` value as an export has it and the
format name the service should report for it."""

import base64
import hashlib
import os
import subprocess

from passlib.hash import argon2, des_crypt, md5_crypt, pbkdf2_sha1, pbkdf2_sha256, pbkdf2_sha512, phpass, scrypt
from passlib.hash import sha256_crypt, sha512_crypt


def _run(*command):
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()


def _hex(data):
    return data.hex()


def _b64(data):
    return base64.b64encode(data).decode()


_ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _phpass_base64(data):
    """phpass's encode64 (Drupal 7's _password_base64_encode): three bytes at a time, six bits from the low end."""
    out, index = "", 0
    while index < len(data):
        value = data[index]
        index += 1
        out += _ITOA64[value & 0x3F]
        if index < len(data):
            value |= data[index] << 8
        out += _ITOA64[(value >> 6) & 0x3F]
        if index >= len(data):
            break
        index += 1
        if index < len(data):
            value |= data[index] << 16
        out += _ITOA64[(value >> 12) & 0x3F]
        if index >= len(data):
            break
        index += 1
        out += _ITOA64[(value >> 18) & 0x3F]
    return out


def _drupal7(password, log2_count=10):
    """Drupal 7's `$S$` (password.inc): SHA-512 of salt and password, 2^count times SHA-512 of the digest and the
    password, the whole string cut at 55 characters. Janrain's `password-phpass-sha512-truncated-55`; passlib lacks it."""
    salt = "".join(_ITOA64[byte & 0x3F] for byte in os.urandom(8))
    digest = hashlib.sha512(salt.encode() + password.encode()).digest()
    for _ in range(1 << log2_count):
        digest = hashlib.sha512(digest + password.encode()).digest()
    return ("$S$" + _ITOA64[log2_count] + salt + _phpass_base64(digest))[:55]


def good_cases(password):
    """(label, password value, format): every format, each from an independent implementation, at modest costs."""
    raw = password.encode()
    salt = os.urandom(6).hex()
    salt_bytes = os.urandom(9)
    salt_b64 = _b64(salt_bytes)
    cases = [
        # Janrain's plain digests: hex (the export's usual form) and base64.
        ("md5", {"type": "password-md5", "value": _hex(hashlib.md5(raw).digest())}, "md5"),
        ("sha1", {"type": "password-sha", "value": _hex(hashlib.sha1(raw).digest())}, "sha1"),
        ("sha-256", {"type": "password-sha-256", "value": _hex(hashlib.sha256(raw).digest()).upper()}, "sha-256"),
        ("sha-512", {"type": "password-sha-512", "value": _b64(hashlib.sha512(raw).digest())}, "sha-512"),
        ("md5-salted-left", {"type": "password-md5-salted-left", "salt": salt,
                             "value": _hex(hashlib.md5(salt.encode() + raw).digest())}, "md5-salted-left"),
        ("md5-salted-right", {"type": "password-md5-salted-right", "salt": salt,
                              "value": _hex(hashlib.md5(raw + salt.encode()).digest())}, "md5-salted-right"),
        ("md5-salted-left-base64", {"type": "password-md5-salted-left-base64", "salt": salt_b64,
                                    "value": _b64(hashlib.md5(salt_bytes + raw).digest())}, "md5-salted-left"),
        ("md5-salted-right-base64", {"type": "password-md5-salted-right-base64", "salt": salt_b64,
                                     "value": _hex(hashlib.md5(raw + salt_bytes).digest())}, "md5-salted-right"),
        ("netforum", {"type": "password-netforum", "salt": salt,
                      "value": _hex(hashlib.sha1(salt.encode() + raw).digest())}, "netforum"),
        # PBKDF2 as Janrain's object (hashlib) and as passlib's strings.
        ("pbkdf2-sha1 object", {"type": "password-pbkdf2-sha1", "salt": salt, "iterations": 2000,
                                "value": _hex(hashlib.pbkdf2_hmac("sha1", raw, salt.encode(), 2000))}, "pbkdf2-sha1"),
        ("pbkdf2-sha512 object", {"type": "password-pbkdf2-sha512", "salt": salt, "iterations": "3000",
                                  "value": _b64(hashlib.pbkdf2_hmac("sha512", raw, salt.encode(), 3000))},
         "pbkdf2-sha512"),
        ("passlib pbkdf2_sha1", pbkdf2_sha1.using(rounds=2000).hash(password), "pbkdf2-sha1"),
        ("passlib pbkdf2_sha256", {"type": "password-pbkdf2-sha256",
                                   "value": pbkdf2_sha256.using(rounds=5000).hash(password)}, "pbkdf2-sha256"),
        ("passlib pbkdf2_sha512", pbkdf2_sha512.using(rounds=2500).hash(password), "pbkdf2-sha512"),
        # crypt(3): passlib, openssl passwd, mkpasswd.
        ("passlib md5_crypt", md5_crypt.hash(password), "crypt-md5"),
        ("openssl passwd -1", {"type": "password-crypt-md5", "value": _run("openssl", "passwd", "-1", password)},
         "crypt-md5"),
        ("openssl passwd -5", _run("openssl", "passwd", "-5", password), "crypt-sha256"),
        ("openssl passwd -6", {"type": "password-crypt-sha512", "value": _run("openssl", "passwd", "-6", password)},
         "crypt-sha512"),
        ("mkpasswd sha512crypt", _run("mkpasswd", "-m", "sha512crypt", "-R", "20000", password), "crypt-sha512"),
        ("mkpasswd sha256crypt", {"type": "password-crypt-sha256",
                                  "value": _run("mkpasswd", "-m", "sha256crypt", password)}, "crypt-sha256"),
        ("passlib sha256_crypt", sha256_crypt.using(rounds=10000).hash(password), "crypt-sha256"),
        ("passlib sha512_crypt", sha512_crypt.using(rounds=10000).hash(password), "crypt-sha512"),
        ("mkpasswd descrypt", {"type": "password-crypt-des", "value": _run("mkpasswd", "-m", "descrypt", password)},
         "crypt-des"),
        ("passlib des_crypt", {"type": "password-crypt-des", "value": des_crypt.hash(password)}, "crypt-des"),
        # phpass (WordPress $P$, phpBB3 $H$).
        ("passlib phpass", {"type": "password-phpass-md5", "value": phpass.using(rounds=10).hash(password)}, "phpass"),
        ("passlib phpass $H$", phpass.using(rounds=12, ident="H").hash(password), "phpass"),
        ("hashlib drupal7 $S$", {"type": "password-phpass-sha512-truncated-55", "value": _drupal7(password)}, "phpass"),
        # PHC strings.
        ("passlib argon2id", argon2.using(type="ID", memory_cost=8192, rounds=2, parallelism=2).hash(password),
         "argon2id"),
        ("passlib argon2i", argon2.using(type="I", memory_cost=4096, rounds=3, parallelism=1).hash(password),
         "argon2i"),
        ("passlib scrypt", scrypt.using(rounds=12, block_size=8, parallelism=1).hash(password), "scrypt"),
    ]
    return cases


def malformed_cases(password):
    """Hashes out of their format's shape: refused on import as 340 invalid_data_format."""
    raw = password.encode()
    md5 = hashlib.md5(raw).hexdigest()
    sha512 = sha512_crypt.using(rounds=5000).hash(password)
    argon = argon2.using(type="ID", memory_cost=1024, rounds=1, parallelism=1).hash(password)
    return [
        ("truncated md5", {"type": "password-md5", "value": md5[:-1]}),
        ("md5 with a salt", {"type": "password-md5", "value": md5, "salt": "x"}),
        ("salted without its salt", {"type": "password-md5-salted-left", "value": md5}),
        ("sha-256 of md5's length", {"type": "password-sha-256", "value": md5}),
        ("unknown type", {"type": "password-md4", "value": md5}),
        ("plain text", password),
        ("bare digest", md5),
        ("crypt of another method", {"type": "password-crypt-sha256", "value": sha512}),
        ("truncated sha512crypt", sha512[:-2]),
        ("argon2 without p", argon.replace(",p=1", "")),
        ("pbkdf2 without iterations", {"type": "password-pbkdf2-sha256", "salt": "s",
                                       "value": hashlib.pbkdf2_hmac("sha256", raw, b"s", 1000).hex()}),
        ("des of 12 characters", {"type": "password-crypt-des", "value": des_crypt.hash(password)[:12]}),
    ]


def over_cost_cases(password):
    """Hashes whose one check could occupy the service: refused on import as 360 constraint_violation. Only the
    parameters are costly; making them would be, so the digests are those of cheaper hashes (never checked)."""
    raw = password.encode()
    pbkdf2 = pbkdf2_sha256.using(rounds=1000).hash(password)
    # Not 5000: passlib leaves glibc's default rounds out of the string.
    sha512 = sha512_crypt.using(rounds=6000).hash(password)
    argon = argon2.using(type="ID", memory_cost=1024, rounds=1, parallelism=1).hash(password)
    cheap_scrypt = scrypt.using(rounds=4, block_size=8, parallelism=1).hash(password)
    wordpress = phpass.using(rounds=8).hash(password)
    cases = [
        ("pbkdf2 of 10,000,000 iterations", pbkdf2.replace("$1000$", "$10000000$")),
        ("pbkdf2 object of 3,000,000 iterations", {"type": "password-pbkdf2-sha1", "salt": "s", "iterations": 3000000,
                                                   "value": hashlib.pbkdf2_hmac("sha1", raw, b"s", 1).hex()}),
        ("sha512crypt of 9,999,999 rounds", sha512.replace("$6$rounds=6000$", "$6$rounds=9999999$")),
        ("phpass of 2^30", wordpress[:3] + "S" + wordpress[4:]),
        ("argon2id of 4 GiB", argon.replace("m=1024", "m=4194304")),
        ("argon2id of 1000 passes", argon.replace("t=1", "t=1000")),
        ("scrypt of N=2^24", cheap_scrypt.replace("ln=4", "ln=24")),
    ]
    cheap = {pbkdf2, sha512, argon, cheap_scrypt, wordpress}
    assert not any(isinstance(value, str) and value in cheap for _, value in cases), "a costly parameter was lost"
    return cases
