#include "uuid.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

static void random_bytes(uint8_t *p, size_t n)
{
	ssize_t got = getrandom(p, n, 0);
	if (got == (ssize_t)n)
		return;
	/* getrandom can only fail on ancient kernels; urandom is the same pool. */
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, p, n) != (ssize_t)n)
		abort();
	close(fd);
}

void mock_uuid_v4(char out[MOCK_UUID_LEN + 1])
{
	uint8_t b[16];
	random_bytes(b, sizeof(b));
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	snprintf(out, MOCK_UUID_LEN + 1,
	         "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
	         b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
	         b[15]);
}
