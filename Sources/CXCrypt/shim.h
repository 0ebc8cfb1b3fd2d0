// libxcrypt's crypt(3) for Swift: the MD5, SHA-256, SHA-512 and DES crypt methods the legacy verifier checks. The
// reentrant crypt_rn writes into a caller's crypt_data, so concurrent checks on the HashingPool share nothing.
#ifndef CXCRYPT_SHIM_H
#define CXCRYPT_SHIM_H

#include <crypt.h>

#endif
