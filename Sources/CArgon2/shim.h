// libargon2 (the reference implementation) for Swift. Nothing but the one call the legacy verifier needs: argon2's
// raw output for given parameters, computed on the calling thread (threads = 1), so it stays on the HashingPool
// thread that called it instead of starting one thread per lane as argon2_verify would.
#ifndef CARGON2_SHIM_H
#define CARGON2_SHIM_H

#include <argon2.h>
#include <string.h>

/// `type`: 0 argon2d, 1 argon2i, 2 argon2id (argon2_type). Returns ARGON2_OK (0) or an argon2 error code.
static inline int cargon2_raw(int type, uint32_t version, uint32_t t_cost, uint32_t m_cost, uint32_t lanes,
                              const uint8_t *password, uint32_t password_length, const uint8_t *salt,
                              uint32_t salt_length, uint8_t *out, uint32_t out_length) {
    argon2_context context;
    memset(&context, 0, sizeof context);
    context.out = out;
    context.outlen = out_length;
    context.pwd = (uint8_t *)password;
    context.pwdlen = password_length;
    context.salt = (uint8_t *)salt;
    context.saltlen = salt_length;
    context.t_cost = t_cost;
    context.m_cost = m_cost;
    context.lanes = lanes;
    context.threads = 1;
    context.version = version;
    context.flags = ARGON2_DEFAULT_FLAGS;
    return argon2_ctx(&context, (argon2_type)type);
}

#endif
