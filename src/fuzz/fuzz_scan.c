/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_scan.c - libFuzzer target for mcount-scan's parser: one input is the
 * text of an objdump listing (objdump -h -t -r or -h -t -dr), read through
 * fmemopen by objdump_read() and then scanned and emitted as main.c does,
 * without an object file.
 *
 * The helper's sources are compiled for this target with
 * -Dexit=mcount_fuzz_exit: fatal() then lands here and jumps back out of
 * the input instead of ending the process (a refused listing is a normal
 * outcome, not a crash).  objdump.c is also compiled with
 * -Dgetline=mcount_fuzz_getline, so that the line buffer objdump_read()
 * holds when fatal() jumps out can be freed (else every refused listing
 * would be reported as a leak).  Messages go to /dev/null unless
 * MCOUNT_FUZZ_VERBOSE is set.  The entry mode and section list are chosen
 * from the input's length, so every seed is also tried the other ways. */
#define _GNU_SOURCE
#include "../scan.h"

#include <sanitizer/lsan_interface.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
_Noreturn void mcount_fuzz_exit(int status);
ssize_t mcount_fuzz_getline(char **lineptr, size_t *n, FILE *stream);

static jmp_buf on_fatal;
static int in_input;
static FILE *sink;
static char *line_buffer;   /* objdump_read()'s, while it runs */

ssize_t mcount_fuzz_getline(char **lineptr, size_t *n, FILE *stream)
{
	ssize_t len = getline(lineptr, n, stream);
	line_buffer = *lineptr;
	return len;
}

_Noreturn void mcount_fuzz_exit(int status)
{
	if (in_input)
		longjmp(on_fatal, 1);
	_Exit(status);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	if (!getenv("MCOUNT_FUZZ_VERBOSE"))
		stderr = sink;
	diag_file = "fuzz.o";
	return 0;
}

/* scanning: after a fatal() in the scan, obj->sites is half compacted (some
 * relocation names freed, others copied), so those names are not freed
 * (LeakSanitizer was told to ignore them before the scan) */
static void release(struct object *obj, bool scanning)
{
	if (scanning)
		obj->nsites = 0;
	object_free(obj);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* static: read again after a longjmp out of fatal() */
	static struct object obj;
	static FILE *in;
	static bool scanning;
	const char *sections = (size & 2) ? "all" : "kernel";
	enum entry_mode mode = (size & 1) ? ENTRY_RELOC : ENTRY_CALL;

	if (size == 0)
		return 0;
	object_init(&obj);
	in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	obj.label = diag_file;
	in_input = 1;
	line_buffer = NULL;
	scanning = false;
	if (setjmp(on_fatal) == 0) {
		objdump_read(in, &obj);
		line_buffer = NULL;     /* freed by objdump_read itself */
		/* the scan frees these itself; a fatal() in it leaves some unfreed */
		for (size_t i = 0; i < obj.nsites; i++)
			__lsan_ignore_object(obj.sites[i].reloc);
		scanning = true;
		if ((obj.bfd_format || obj.saw_headers || obj.saw_symtab) && obj.arch) {
			const char *status = scan_object(&obj, sections, mode);
			if (obj.nsites)
				emit_assembly(sink, &obj);
			emit_plan(sink, &obj, status);
		}
		scanning = false;
	}
	in_input = 0;
	/* set only if fatal() left objdump_read() from inside its loop (a
	 * read error after the loop cannot happen on a memory stream) */
	free(line_buffer);
	line_buffer = NULL;
	fclose(in);
	release(&obj, scanning);
	return 0;
}
