
seed.o:     file format elf32-powerpc

Sections:
Idx Name          Size      VMA       LMA       File off  Algn
  0 .text         000000c8  00000000  00000000  00000040  2**4
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  1 .data         00000000  00000000  00000000  00000108  2**0
                  CONTENTS, ALLOC, LOAD, DATA
  2 .bss          00000000  00000000  00000000  00000108  2**0
                  ALLOC
  3 .got2         00000000  00000000  00000000  00000108  2**2
                  CONTENTS, ALLOC, LOAD, DATA
  4 .init.text    00000048  00000000  00000000  00000110  2**4
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  5 .text.unlikely 00000044  00000000  00000000  00000158  2**2
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  6 .comment      00000020  00000000  00000000  0000019c  2**0
                  CONTENTS, READONLY
  7 .note.GNU-stack 00000000  00000000  00000000  000001bc  2**0
                  CONTENTS, READONLY
  8 .eh_frame     000000d4  00000000  00000000  000001bc  2**2
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, DATA
SYMBOL TABLE:
00000000 l    df *ABS*	00000000 seed.c
00000000 l    d  .text	00000000 .text
00000000 l    d  .data	00000000 .data
00000000 l    d  .bss	00000000 .bss
00000000 l     F .text	00000048 helper
00000000 l    d  .got2	00000000 .got2
00000000 l    d  .init.text	00000000 .init.text
00000000 l    d  .text.unlikely	00000000 .text.unlikely
00000000 l    d  .note.GNU-stack	00000000 .note.GNU-stack
00000000 l    d  .eh_frame	00000000 .eh_frame
00000000 l    d  .comment	00000000 .comment
00000000         *UND*	00000000 _mcount
00000000         *UND*	00000000 ext
00000050 g     F .text	00000030 pub
00000080  w    F .text	00000048 weakfn
00000000 g     F .init.text	00000048 initfn
00000000 g     F .text.unlikely	00000044 coldfn


RELOCATION RECORDS FOR [.text]:
OFFSET   TYPE              VALUE
00000008 R_PPC_PLTREL24    _mcount
00000022 R_PPC_REL16_HA    .got2+0x0000800a
0000002a R_PPC_REL16_LO    .got2+0x00008012
0000002c R_PPC_PLTREL24    ext+0x00008000
00000058 R_PPC_PLTREL24    _mcount
00000088 R_PPC_PLTREL24    _mcount
000000a6 R_PPC_REL16_HA    .got2+0x0000800e
000000ae R_PPC_REL16_LO    .got2+0x00008016
000000b0 R_PPC_PLTREL24    ext+0x00008000


RELOCATION RECORDS FOR [.init.text]:
OFFSET   TYPE              VALUE
00000008 R_PPC_PLTREL24    _mcount
00000022 R_PPC_REL16_HA    .got2+0x0000800a
0000002a R_PPC_REL16_LO    .got2+0x00008012
0000002c R_PPC_PLTREL24    ext+0x00008000


RELOCATION RECORDS FOR [.text.unlikely]:
OFFSET   TYPE              VALUE
00000008 R_PPC_PLTREL24    _mcount
00000022 R_PPC_REL16_HA    .got2+0x0000800a
0000002a R_PPC_REL16_LO    .got2+0x00008012
0000002c R_PPC_PLTREL24    ext+0x00008000


RELOCATION RECORDS FOR [.eh_frame]:
OFFSET   TYPE              VALUE
0000001c R_PPC_REL32       .text
00000044 R_PPC_REL32       .text+0x00000050
00000064 R_PPC_REL32       .text+0x00000080
0000008c R_PPC_REL32       .init.text
000000b4 R_PPC_REL32       .text.unlikely


