/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef CORPUS_H
#define CORPUS_H
int corpus_run(int x);
int corpus_checked(int x);
void corpus_fail(int code);
int corpus_weak(int x);
int corpus_weak_only(int x);
int corpus_sched(int x);
int corpus_init(int x);
int corpus_exotic(int x);
int corpus_plain(int x);
int dup_a(int x);
int dup_b(int x);
#endif
