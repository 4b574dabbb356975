
seed.o:     file format elf32-i386

Sections:
Idx Name          Size      VMA       LMA       File off  Algn
  0 .text         00000055  00000000  00000000  00000040  2**4
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  1 .data         00000000  00000000  00000000  00000095  2**0
                  CONTENTS, ALLOC, LOAD, DATA
  2 .bss          00000000  00000000  00000000  00000095  2**0
                  ALLOC
  3 .init.text    00000018  00000000  00000000  000000a0  2**4
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  4 .text.unlikely 00000010  00000000  00000000  000000b8  2**0
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  5 .comment      00000028  00000000  00000000  000000c8  2**0
                  CONTENTS, READONLY
  6 .note.GNU-stack 00000000  00000000  00000000  000000f0  2**0
                  CONTENTS, READONLY
  7 .eh_frame     00000098  00000000  00000000  000000f0  2**2
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, DATA
SYMBOL TABLE:
00000000 l    df *ABS*	00000000 seed.c
00000000 l    d  .text	00000000 .text
00000000 l     F .text	00000015 helper
00000000 l    d  .init.text	00000000 .init.text
00000000 l    d  .text.unlikely	00000000 .text.unlikely
00000000         *UND*	00000000 __fentry__
00000000         *UND*	00000000 ext
00000020 g     F .text	00000018 pub
00000040  w    F .text	00000015 weakfn
00000000 g     F .init.text	00000018 initfn
00000000 g     F .text.unlikely	00000010 coldfn


RELOCATION RECORDS FOR [.text]:
OFFSET   TYPE              VALUE
00000001 R_386_PC32        __fentry__
0000000a R_386_PC32        ext
00000021 R_386_PC32        __fentry__
00000041 R_386_PC32        __fentry__
00000051 R_386_PC32        ext


RELOCATION RECORDS FOR [.init.text]:
OFFSET   TYPE              VALUE
00000001 R_386_PC32        __fentry__
0000000d R_386_PC32        ext


RELOCATION RECORDS FOR [.text.unlikely]:
OFFSET   TYPE              VALUE
00000001 R_386_PC32        __fentry__
0000000c R_386_PC32        ext


RELOCATION RECORDS FOR [.eh_frame]:
OFFSET   TYPE              VALUE
00000020 R_386_PC32        .text
0000003c R_386_PC32        .text
00000054 R_386_PC32        .text
0000006c R_386_PC32        .init.text
00000088 R_386_PC32        .text.unlikely


