/* SPDX-License-Identifier: GPL-2.0-or-later */
/* insite.S - table entries inside an instruction, for
 * t/100-trace-sites.t: two functions that return the immediate of a
 * movabs, whose bytes hold, two bytes into the instruction, a call to
 * __fentry__ through its GOT slot (ff 15, as mcount-cc's PIE sites are;
 * linked with the library, relaxed to 67 e8: a call to the hook as far
 * as its own bytes and target tell) and the 5-byte NOP of GCC's
 * -mnop-mcount; an entry of __mcount_loc points at each.  Written
 * over, either immediate would change what its function returns.
 * The entries' labels are local: a symbol there would make objdump
 * start a new instruction at it.  Assembled as it is (not through
 * mcount-cc): its __mcount_loc words are linked after the program's
 * real table.  x86_64. */
	.text
	.globl insite_call_fn
	.type insite_call_fn, @function
insite_call_fn:
	.byte 0x48, 0xb8                /* movabs $imm64, %rax */
.Lcall_spot:
	call *__fentry__@GOTPCREL(%rip) /* 6 bytes of the immediate */
	.byte 0x11, 0x22                /* its last 2 */
	ret
	.size insite_call_fn, .-insite_call_fn

	.globl insite_nop_fn
	.type insite_nop_fn, @function
insite_nop_fn:
	.byte 0x48, 0xb8
.Lnop_spot:
	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00
	.byte 0x11, 0x22, 0x33
	ret
	.size insite_nop_fn, .-insite_nop_fn

	.section __mcount_loc, "a", @progbits
	.quad .Lcall_spot
	.quad .Lnop_spot
	.section .note.GNU-stack, "", @progbits
