/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef FORMAT_H
#define FORMAT_H
void print_result(const char *expr, long v);
#endif
