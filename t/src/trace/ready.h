/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ready.h - a test program's handshake with its test: create DIR/ready,
 * then wait (60 s at most) until the test creates DIR/go, so that the
 * test can talk to the running program meanwhile. */
#ifndef READY_H
#define READY_H
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static void ready_then_wait(const char *dir)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/ready", dir);
	close(open(p, O_WRONLY | O_CREAT, 0600));
	snprintf(p, sizeof p, "%s/go", dir);
	struct timespec d = { 0, 10000000 };
	for (int i = 0; i < 6000 && access(p, F_OK); i++)
		nanosleep(&d, NULL);
}
#endif
