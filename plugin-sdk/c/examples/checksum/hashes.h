/* CRC-32 (the zlib/PNG polynomial, as Python's zlib.crc32) and SHA-256 (FIPS 180-4),
 * streaming: init, update with chunks, final. */
#ifndef CHECKSUM_HASHES_H
#define CHECKSUM_HASHES_H
#include <stddef.h>
#include <stdint.h>

uint32_t crc32_update(uint32_t crc, const void *data, size_t len); /* start with crc = 0 */

typedef struct {
    uint32_t state[8];
    uint64_t bytes;
    uint8_t block[64];
    size_t used;
} sha256_ctx;

void sha256_init(sha256_ctx *ctx);
void sha256_update(sha256_ctx *ctx, const void *data, size_t len);
void sha256_final(sha256_ctx *ctx, uint8_t digest[32]);

/* Lower-case hex of len bytes into out (2 * len + 1 bytes). */
void to_hex(const uint8_t *bytes, size_t len, char *out);
#endif
