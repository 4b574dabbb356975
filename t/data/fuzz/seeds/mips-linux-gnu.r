
seed.o:     file format elf32-tradbigmips

Sections:
Idx Name          Size      VMA       LMA       File off  Algn
  0 .text         000000e0  00000000  00000000  00000040  2**4
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  1 .data         00000000  00000000  00000000  00000120  2**4
                  CONTENTS, ALLOC, LOAD, DATA
  2 .bss          00000000  00000000  00000000  00000120  2**4
                  ALLOC
  3 .reginfo      00000018  00000000  00000000  00000120  2**2
                  CONTENTS, ALLOC, LOAD, READONLY, DATA, LINK_ONCE_SAME_SIZE
  4 .MIPS.abiflags 00000018  00000000  00000000  00000138  2**3
                  CONTENTS, ALLOC, LOAD, READONLY, DATA, LINK_ONCE_SAME_SIZE
  5 .pdr          000000a0  00000000  00000000  00000150  2**2
                  CONTENTS, RELOC, READONLY
  6 .mdebug.abi32 00000000  00000000  00000000  000001f0  2**0
                  CONTENTS, READONLY
  7 .init.text    0000004c  00000000  00000000  000001f0  2**2
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  8 .text.unlikely 00000038  00000000  00000000  0000023c  2**2
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  9 .comment      00000020  00000000  00000000  00000274  2**0
                  CONTENTS, READONLY
 10 .note.GNU-stack 00000000  00000000  00000000  00000294  2**0
                  CONTENTS, READONLY
 11 .gnu.attributes 00000010  00000000  00000000  00000294  2**0
                  CONTENTS, READONLY
SYMBOL TABLE:
00000000 l    df *ABS*	00000000 seed.c
00000000 l    d  .text	00000000 .text
00000000 l    d  .data	00000000 .data
00000000 l    d  .bss	00000000 .bss
00000000 l    d  .mdebug.abi32	00000000 .mdebug.abi32
00000000 l     F .text	00000050 helper
00000000 l    d  .init.text	00000000 .init.text
00000000 l    d  .text.unlikely	00000000 .text.unlikely
00000000 l    d  .note.GNU-stack	00000000 .note.GNU-stack
00000000 l    d  .reginfo	00000000 .reginfo
00000000 l    d  .MIPS.abiflags	00000000 .MIPS.abiflags
00000000 l    d  .pdr	00000000 .pdr
00000000 l    d  .comment	00000000 .comment
00000000 l    d  .gnu.attributes	00000000 .gnu.attributes
00000000       O *UND*	00000000 _gp_disp
00000000         *UND*	00000000 _mcount
00000000         *UND*	00000000 ext
00000050 g     F .text	00000050 pub
000000a0  w    F .text	0000003c weakfn
00000000 g     F .init.text	0000004c initfn
00000000 g     F .text.unlikely	00000038 coldfn


RELOCATION RECORDS FOR [.text]:
OFFSET   TYPE              VALUE
00000000 R_MIPS_HI16       _gp_disp
00000004 R_MIPS_LO16       _gp_disp
00000020 R_MIPS_CALL16     _mcount
00000024 R_MIPS_JALR       _mcount
00000030 R_MIPS_CALL16     ext
00000034 R_MIPS_JALR       ext
00000050 R_MIPS_HI16       _gp_disp
00000054 R_MIPS_LO16       _gp_disp
00000070 R_MIPS_CALL16     _mcount
00000074 R_MIPS_JALR       _mcount
00000080 R_MIPS_GOT16      .text
00000084 R_MIPS_LO16       .text
00000088 R_MIPS_JALR       helper
000000a0 R_MIPS_HI16       _gp_disp
000000a4 R_MIPS_LO16       _gp_disp
000000bc R_MIPS_CALL16     _mcount
000000c0 R_MIPS_JALR       _mcount
000000cc R_MIPS_CALL16     ext
000000d4 R_MIPS_JALR       ext


RELOCATION RECORDS FOR [.pdr]:
OFFSET   TYPE              VALUE
00000000 R_MIPS_32         .text
00000020 R_MIPS_32         pub
00000040 R_MIPS_32         weakfn
00000060 R_MIPS_32         initfn
00000080 R_MIPS_32         coldfn


RELOCATION RECORDS FOR [.init.text]:
OFFSET   TYPE              VALUE
00000000 R_MIPS_HI16       _gp_disp
00000004 R_MIPS_LO16       _gp_disp
00000020 R_MIPS_CALL16     _mcount
00000024 R_MIPS_JALR       _mcount
00000030 R_MIPS_CALL16     ext
00000034 R_MIPS_JALR       ext


RELOCATION RECORDS FOR [.text.unlikely]:
OFFSET   TYPE              VALUE
00000000 R_MIPS_HI16       _gp_disp
00000004 R_MIPS_LO16       _gp_disp
0000001c R_MIPS_CALL16     _mcount
00000020 R_MIPS_JALR       _mcount
0000002c R_MIPS_CALL16     ext
00000030 R_MIPS_JALR       ext


