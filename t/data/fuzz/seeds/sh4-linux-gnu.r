
seed.o:     file format elf32-sh-linux

Sections:
Idx Name          Size      VMA       LMA       File off  Algn
  0 .text         00000080  00000000  00000000  00000034  2**2
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  1 .data         00000014  00000000  00000000  000000b4  2**2
                  CONTENTS, ALLOC, LOAD, DATA
  2 .bss          00000000  00000000  00000000  000000c8  2**0
                  ALLOC
  3 .init.text    0000002c  00000000  00000000  000000c8  2**2
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  4 .text.unlikely 00000024  00000000  00000000  000000f4  2**2
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  5 .comment      00000020  00000000  00000000  00000118  2**0
                  CONTENTS, READONLY
  6 .note.GNU-stack 00000000  00000000  00000000  00000138  2**0
                  CONTENTS, READONLY
SYMBOL TABLE:
00000000 l    df *ABS*	00000000 seed.c
00000000 l    d  .text	00000000 .text
00000000 l    d  .data	00000000 .data
00000000 l    d  .bss	00000000 .bss
00000000 l     F .text	00000030 helper
00000000 l    d  .init.text	00000000 .init.text
00000000 l    d  .text.unlikely	00000000 .text.unlikely
00000000 l    d  .note.GNU-stack	00000000 .note.GNU-stack
00000000 l    d  .comment	00000000 .comment
00000000         *UND*	00000000 mcount
00000000         *UND*	00000000 ext
00000030 g     F .text	0000002c pub
0000005c  w    F .text	00000024 weakfn
00000000 g     F .init.text	0000002c initfn
00000000 g     F .text.unlikely	00000024 coldfn


RELOCATION RECORDS FOR [.text]:
OFFSET   TYPE              VALUE
0000000c R_SH_DIR32        mcount
0000002c R_SH_DIR32        ext
0000003c R_SH_DIR32        mcount
00000058 R_SH_DIR32        .text
00000068 R_SH_DIR32        mcount
0000007c R_SH_DIR32        ext


RELOCATION RECORDS FOR [.init.text]:
OFFSET   TYPE              VALUE
0000000c R_SH_DIR32        mcount
00000028 R_SH_DIR32        ext


RELOCATION RECORDS FOR [.text.unlikely]:
OFFSET   TYPE              VALUE
0000000c R_SH_DIR32        mcount
00000020 R_SH_DIR32        ext


