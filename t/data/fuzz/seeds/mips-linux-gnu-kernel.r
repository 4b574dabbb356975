
seed.o:     file format elf32-tradbigmips

Sections:
Idx Name          Size      VMA       LMA       File off  Algn
  0 .text         000000a0  00000000  00000000  00000040  2**4
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  1 .data         00000000  00000000  00000000  000000e0  2**4
                  CONTENTS, ALLOC, LOAD, DATA
  2 .bss          00000000  00000000  00000000  000000e0  2**4
                  ALLOC
  3 .reginfo      00000018  00000000  00000000  000000e0  2**2
                  CONTENTS, ALLOC, LOAD, READONLY, DATA, LINK_ONCE_SAME_SIZE
  4 .MIPS.abiflags 00000018  00000000  00000000  000000f8  2**3
                  CONTENTS, ALLOC, LOAD, READONLY, DATA, LINK_ONCE_SAME_SIZE
  5 .pdr          000000a0  00000000  00000000  00000110  2**2
                  CONTENTS, RELOC, READONLY
  6 .mdebug.abi32 00000000  00000000  00000000  000001b0  2**0
                  CONTENTS, READONLY
  7 .init.text    0000003c  00000000  00000000  000001b0  2**2
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  8 .text.unlikely 00000024  00000000  00000000  000001ec  2**2
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  9 .comment      00000020  00000000  00000000  00000210  2**0
                  CONTENTS, READONLY
 10 .note.GNU-stack 00000000  00000000  00000000  00000230  2**0
                  CONTENTS, READONLY
 11 .gnu.attributes 00000010  00000000  00000000  00000230  2**0
                  CONTENTS, READONLY
SYMBOL TABLE:
00000000 l    df *ABS*	00000000 seed.c
00000000 l    d  .text	00000000 .text
00000000 l    d  .data	00000000 .data
00000000 l    d  .bss	00000000 .bss
00000000 l    d  .mdebug.abi32	00000000 .mdebug.abi32
00000000 l     F .text	00000040 helper
00000000 l    d  .init.text	00000000 .init.text
00000000 l    d  .text.unlikely	00000000 .text.unlikely
00000000 l    d  .note.GNU-stack	00000000 .note.GNU-stack
00000000 l    d  .reginfo	00000000 .reginfo
00000000 l    d  .MIPS.abiflags	00000000 .MIPS.abiflags
00000000 l    d  .pdr	00000000 .pdr
00000000 l    d  .comment	00000000 .comment
00000000 l    d  .gnu.attributes	00000000 .gnu.attributes
00000000         *UND*	00000000 _mcount
00000000         *UND*	00000000 ext
00000040 g     F .text	0000003c pub
0000007c  w    F .text	00000024 weakfn
00000000 g     F .init.text	0000003c initfn
00000000 g     F .text.unlikely	00000024 coldfn


RELOCATION RECORDS FOR [.text]:
OFFSET   TYPE              VALUE
00000008 R_MIPS_HI16       _mcount
0000000c R_MIPS_LO16       _mcount
0000001c R_MIPS_HI16       ext
00000020 R_MIPS_LO16       ext
00000048 R_MIPS_HI16       _mcount
0000004c R_MIPS_LO16       _mcount
0000005c R_MIPS_HI16       .text
00000060 R_MIPS_LO16       .text
0000007c R_MIPS_HI16       _mcount
00000080 R_MIPS_LO16       _mcount
00000090 R_MIPS_HI16       ext
00000094 R_MIPS_LO16       ext


RELOCATION RECORDS FOR [.pdr]:
OFFSET   TYPE              VALUE
00000000 R_MIPS_32         .text
00000020 R_MIPS_32         pub
00000040 R_MIPS_32         weakfn
00000060 R_MIPS_32         initfn
00000080 R_MIPS_32         coldfn


RELOCATION RECORDS FOR [.init.text]:
OFFSET   TYPE              VALUE
00000008 R_MIPS_HI16       _mcount
0000000c R_MIPS_LO16       _mcount
0000001c R_MIPS_HI16       ext
00000020 R_MIPS_LO16       ext


RELOCATION RECORDS FOR [.text.unlikely]:
OFFSET   TYPE              VALUE
00000000 R_MIPS_HI16       _mcount
00000004 R_MIPS_LO16       _mcount
00000014 R_MIPS_HI16       ext
00000018 R_MIPS_LO16       ext


