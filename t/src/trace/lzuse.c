/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lzuse.c - a user of xz's liblzma, whose interface has symbol versions
 * (t/101-trace-names.t): the multi-threaded stream encoder
 * (lzma_stream_encoder_mt, default version XZ_5.2, compatibility
 * aliases XZ_5.2.2 and XZ_5.1.2alpha), lzma_cputhreads and
 * lzma_block_uncomp_encode (XZ_5.2, XZ_5.2.2), and a plain one
 * (lzma_code, XZ_5.0).  Prints the compressed sizes.
 *
 *   lzuse            compress and exit
 *   lzuse DIR        the same, then create DIR/ready and wait (60 s at
 *                    most) for DIR/go: its functions can be listed
 */
#include <fcntl.h>
#include <lzma.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ready.h"

static int encode_mt(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *got)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_mt mt;
	memset(&mt, 0, sizeof mt);
	mt.threads = 2;
	mt.preset = 1;
	mt.check = LZMA_CHECK_CRC32;
	if (lzma_stream_encoder_mt(&s, &mt) != LZMA_OK)
		return -1;
	s.next_in = in;
	s.avail_in = n;
	s.next_out = out;
	s.avail_out = cap;
	lzma_ret r;
	do
		r = lzma_code(&s, LZMA_FINISH);
	while (r == LZMA_OK);
	*got = cap - s.avail_out;
	lzma_end(&s);
	return r == LZMA_STREAM_END ? 0 : -1;
}

static int encode_block(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *got)
{
	lzma_filter filters[2] = { { LZMA_VLI_UNKNOWN, NULL }, { LZMA_VLI_UNKNOWN, NULL } };
	lzma_block b;
	memset(&b, 0, sizeof b);
	b.version = 1;
	b.check = LZMA_CHECK_CRC32;
	b.filters = filters;
	*got = 0;
	return lzma_block_uncomp_encode(&b, in, n, out, got, cap) == LZMA_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
	static uint8_t in[65536], out[131072];
	for (size_t i = 0; i < sizeof in; i++)
		in[i] = (uint8_t)("mcount-trace"[i % 12] + i / 4096);
	size_t a, b;
	if (lzma_cputhreads() < 1 || encode_mt(in, sizeof in, out, sizeof out, &a) ||
	    encode_block(in, 1000, out, sizeof out, &b)) {
		fprintf(stderr, "lzuse: liblzma failed\n");
		return 1;
	}
	printf("%zu %zu\n", a, b);
	fflush(stdout);
	if (argc > 1)
		ready_then_wait(argv[1]);
	return 0;
}
