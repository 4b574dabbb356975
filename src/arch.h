/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch.h - what the scanner knows about each target architecture.
 *
 * Every per-architecture fact the project relies on lives in the table in
 * arch.c: hook names, the relocation types that mark a call to a hook, where
 * the relocated field sits inside the call instruction, the opcode that call
 * starts with, the table entry directive, and the flags the assembler and
 * linker need.  Adding an architecture means adding a row there, and its
 * row of arches.tab (which build/arch-check holds these rows to).
 */
#ifndef MCOUNT_ARCH_H
#define MCOUNT_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What a relocation against the hook is. */
enum form_kind {
	FORM_SITE,                    /* it marks a call site: one table entry */
	FORM_COMPANION,               /* the second (third...) relocation of a site whose
				       * first one came at most `span` bytes before it
				       * (mips LO16 after HI16, JALR after CALL16): no entry */
};

/* One way a compiler calls the profiling hook.  The instruction holding
 * the relocated field starts field_offset bytes before it; the entry of
 * the site is `lead` bytes before that instruction (s390's mcount
 * sequence begins with a store); the opcode is checked at the entry plus
 * check_at[0] (or, when ncheck is 2, plus check_at[1]). */
struct call_form {
	const char *reloc;            /* relocation type as objdump names it */
	unsigned field_offset;        /* bytes from the call's first byte to the relocated field */
	unsigned insn_len;            /* length of the call instruction */
	unsigned char opcode[4];      /* expected first bytes of the call ... */
	unsigned char opmask[4];      /* ... compared under this mask */
	unsigned oplen;               /* how many opcode bytes to check (0: none) */
	enum form_kind kind;
	unsigned span;                /* FORM_COMPANION: greatest distance to its site */
	int check_at[2];              /* where the opcode is, relative to the entry */
	unsigned ncheck;              /* 0 or 1: check_at[0]; 2: either place */
	unsigned lead;                /* bytes of the call sequence before the call */
	const char *hook;             /* the form applies to this hook only (NULL: any) */
	/* How a call of this form is found in a linked file, where the
	 * relocations are gone (NULL: its instruction's disassembly names
	 * the hook, as `bl <_mcount>`).  Otherwise one of:
	 *   "named-end"  the last instruction of the call names the hook; the
	 *                call starts insn_len bytes before that one's end
	 *   "word"       the entry is a word holding the hook's address
	 *   "got:SYM"    the entry is a word holding an offset from SYM of a
	 *                GOT slot that holds the hook's address
	 *   "gprel:SYM"  the entry's instruction loads from SYM plus its
	 *                signed 16-bit field, a GOT slot holding the hook
	 *   "abs16:N"    the low 16 bits of the instruction word are bits
	 *                N..N+15 of the hook's address, rounded for the
	 *                sign-extended parts added after them (mips %hi,
	 *                %higher, %highest; N=0 is %lo)
	 * The opcode and mask (at check_at) select the instructions. */
	const char *linked;
	/* For --linked (a table built from an image linked with -q, whose
	 * relocations survive): a form that only a linker makes, by rewriting
	 * a compiler's call (x86: `ff 15` relaxed to `67 e8`); object mode
	 * never uses it.  Its reloc may be NULL: then it is found under any
	 * relocation type a call form of the row names, since a linker may
	 * keep the original type or change it (the bytes decide, not the
	 * type).  A form's entry is at the relocated field minus field_offset
	 * minus lead, as for the others. */
	bool linker_made;
	/* For --linked with a -dr listing: bytes from the entry to the
	 * instruction holding the relocated field (0: the call is the first
	 * instruction; `90 e8`, the nop that -z call-nop=prefix-0x90 puts
	 * before a relaxed call: 1, and that nop must start the entry). */
	unsigned call_at;
};

/* A relocation type's number in the ELF file and its name as objdump
 * prints it (the names the call forms use). */
struct reloc_name {
	unsigned type;
	const char *name;
};

struct arch {
	const char *name;             /* canonical name: x86_64, i386, ... */
	const char *kernel_arch;      /* kernel ARCH value(s) that select it, '|'-separated */
	unsigned elf_machine;         /* e_machine */
	unsigned elf_class;           /* 32 or 64 */
	bool big_endian;
	const char *bfd_format;       /* what objdump prints after "file format" */
	const char *const *hooks;     /* names of the profiling hook */
	const struct call_form *forms;
	size_t nforms;
	/* the numbers of the relocation types the call forms name, for
	 * reading an object's relocations without objdump (the one-link
	 * method: --bound, --fill-linked); NULL-named end; NULL: not known */
	const struct reloc_name *reloc_names;
	/* The number of the relocation type of an absolute word of
	 * entry_size bytes (the placeholder's entries against __ehdr_start)
	 * and whether the target's objects give addends in RELA sections
	 * (else REL, the addend in place): with them mcount-scan --bound
	 * writes the placeholder's object itself, where the row's objects
	 * need no e_flags or attributes of their own (0: the assembler
	 * assembles its assembly). */
	unsigned word_reloc;
	bool rela;
	bool mips64_r_info;           /* a 64-bit file's r_info is MIPS64's: the symbol's 32
				       * bits first, then a special symbol's byte and three
				       * type bytes, the first type last (the MIPS64 ELF
				       * ABI), not the symbol's 32 bits above the type's */
	const char *entry_directive;  /* .quad / .long */
	unsigned entry_size;          /* bytes per table entry and its alignment */
	char type_prefix;             /* '@' or '%' in .section type arguments */
	const char *ld_emulation;     /* ld -m value for ld -r */
	const char *cc_flag;          /* compiler-driver flag that selects it */
	const char *as_flag;          /* assembler flag that selects it */
	const char *triple;           /* GNU triple of Debian's cross tools */
	const char *entry_doc;        /* what a table entry points at, for --list-arches */
	const char *compiler_nop;     /* the bytes (hex) GCC's -mnop-mcount leaves where
				       * a call would be, which its -mrecord-mcount table
				       * points at (--verify takes them); NULL: no such form */
	bool mapping_symbols;         /* the assembler marks the table with a local $d */
	unsigned entry_flag_bits;     /* low bits of an entry that are flags, not address
				       * (arm: bit 0 marks Thumb code); consumers clear them */
	bool arm_attributes;          /* restate the object's .ARM.attributes in the table's
				       * object, or ld -r merges them with the table's own */
	bool mips_flags;              /* restate the object's ISA, NaN encoding and PIC
				       * flags (e_flags) as directives, and say the table
				       * takes no floating-point ABI: ld -r merges them */
	/* For the front ends (printed in the plan; see emit_plan()): */
	bool driver_as;               /* a GCC driver for this target assembles by running
				       * exactly `as AS_FLAG` plus its -Wa, options, so the
				       * pipeline may run `as` itself */
	const char *driver_as_unless; /* driver options that change that `as` command
				       * (space-separated): with one of them the
				       * driver assembles (NULL: none) */
	const char *as_flag_family;   /* assembler flags that select a word size or ABI,
				       * space-separated: a command that has one of them
				       * gets no as_flag added (NULL: none) */
	const char *cc_flag_family;   /* the same for compiler-driver flags and cc_flag */
	const char *hook_stubs;       /* symbol names of linker-made stubs that stand for the
				       * hook in a linked file, space-separated patterns:
				       * '*' matches any string, "%h" any of the hooks
				       * (NULL: the linker makes none) */
	const char *got_register;     /* a PIC call `call *DISP(REG)` goes through the GOT
				       * whose address this register holds (NULL: none) */
	const char *object_link_flags; /* compiler-driver flags a link of objects with
				       * per-object tables needs, space-separated (riscv:
				       * the relaxing linker moves code that an anchor +
				       * delta entry cannot follow) (NULL: none) */
	unsigned scan_align;          /* alignment of the instructions and words a byte scan
				       * of a linked file's code examines for the forms
				       * with linked word, got:, gprel: or abs16: (0: none) */
	/* The compiler's own table (mcount-cc's MCOUNT_CC_MODE=compiler, and
	 * --verify of __patchable_function_entries): */
	const char *cc_table_flags;   /* the compiler flags that make the compiler write
				       * NOPs and their table, nothing to record and no
				       * hook to link (NULL: none chosen; see
				       * arch_cc_table_flags, which may choose by e_flags) */
	const char *patchable_nops;   /* the NOP instructions a compiler fills a
				       * -fpatchable-function-entry area with: hex bytes in
				       * the file's order, ".." any byte, space-separated,
				       * the longest first (NULL: not known) */
	bool patchable_bytes;         /* -fpatchable-function-entry's N and M count bytes
				       * (x86: GCC's one-byte NOPs, clang's longer ones
				       * filling as many bytes), not NOP instructions */
};

/* The table's i-th row, NULL past its end (src/arch-check.c walks it). */
const struct arch *arch_at(size_t i);
/* Find an architecture by canonical or kernel name; bits (0, 32, 64) and
 * big_endian (-1: either) resolve kernel names shared by several rows
 * (x86, powerpc, mips).  NULL if unknown. */
const struct arch *arch_lookup(const char *name, unsigned bits, int big_endian);
/* Does this name (canonical or kernel) select the architecture? */
bool arch_has_name(const struct arch *a, const char *name);
const struct arch *arch_by_machine(unsigned machine, unsigned elf_class, bool big_endian);
/* A name for an object's machine in messages: the name of the row with
 * this e_machine that matches most of class and byte order (the first of
 * equals); NULL if no row has this e_machine. */
const char *arch_machine_name(unsigned machine, unsigned elf_class, bool big_endian);
const struct arch *arch_by_bfd_format(const char *format);
/* The row's spelling of the hook named by the len bytes at name, or
 * NULL if they name none of the row's hooks. */
const char *arch_hook(const struct arch *a, const char *name, size_t len);
/* The form of a relocation of type reloc against the hook named by the
 * hooklen bytes at hook; NULL if the architecture has none. */
const struct call_form *arch_form(const struct arch *a, const char *reloc,
				  const char *hook, size_t hooklen);
/* The name of relocation type number type of row a (as its call forms
 * name it), or NULL where the row does not know it. */
const char *arch_reloc_name(const struct arch *a, unsigned type);
/* For messages, allocated: the names arch_lookup() knows ("x86_64, i386,
 * ...; kernel ARCH names: x86, ..."), and the rows a name selects
 * ("mips 32-bit big-endian, mipsel 32-bit little-endian, ..."). */
char *arch_known_names(void);
char *arch_variants(const char *name);
void arch_list(void);

/* The flags of row a's cc_table_flags for an object whose ELF header has
 * e_flags (riscv64: as many NOPs as make 8 bytes, compressed or not);
 * NULL where the row has none. */
const char *arch_cc_table_flags(const struct arch *a, uint32_t e_flags);

/* Directives for the head of the table's assembly that make its object
 * match an object of row a whose ELF header has e_flags (the rows with
 * mips_flags; ld -r merges the two objects' flags and attributes). */
void arch_table_directives(const struct arch *a, uint32_t e_flags, FILE *out);
/* The assembler flags that make the table's object match an object of
 * row a whose ELF header has e_flags, where the bare assembler's defaults
 * would differ from what the compiler driver told it (ld -r merges the
 * two objects' flags and sections): written into buf, "" if none. */
void arch_object_as_flags(const struct arch *a, uint32_t e_flags, char *buf, size_t len);

#endif
