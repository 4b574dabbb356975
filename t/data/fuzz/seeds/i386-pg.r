
seed.o:     file format elf32-i386

Sections:
Idx Name          Size      VMA       LMA       File off  Algn
  0 .group        00000008  00000000  00000000  00000034  2**2
                  CONTENTS, READONLY, GROUP, LINK_ONCE_DISCARD
  1 .text         0000008c  00000000  00000000  00000040  2**4
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  2 .data         00000000  00000000  00000000  000000cc  2**0
                  CONTENTS, ALLOC, LOAD, DATA
  3 .bss          00000000  00000000  00000000  000000cc  2**0
                  ALLOC
  4 .init.text    0000002b  00000000  00000000  000000d0  2**4
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  5 .text.unlikely 00000028  00000000  00000000  000000fb  2**0
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  6 .text.__x86.get_pc_thunk.bx 00000004  00000000  00000000  00000123  2**0
                  CONTENTS, ALLOC, LOAD, READONLY, CODE
  7 .comment      00000028  00000000  00000000  00000127  2**0
                  CONTENTS, READONLY
  8 .note.GNU-stack 00000000  00000000  00000000  0000014f  2**0
                  CONTENTS, READONLY
  9 .eh_frame     000000e0  00000000  00000000  00000150  2**2
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, DATA
SYMBOL TABLE:
00000000 l    df *ABS*	00000000 seed.c
00000000 l    d  .text	00000000 .text
00000000 l     F .text	0000002b helper
00000000 l    d  .init.text	00000000 .init.text
00000000 l    d  .text.unlikely	00000000 .text.unlikely
00000000 l    d  .text.__x86.get_pc_thunk.bx	00000000 .text.__x86.get_pc_thunk.bx
00000000 g     F .text.__x86.get_pc_thunk.bx	00000000 .hidden __x86.get_pc_thunk.bx
00000000         *UND*	00000000 _GLOBAL_OFFSET_TABLE_
00000000         *UND*	00000000 mcount
00000000         *UND*	00000000 ext
00000030 g     F .text	0000002b pub
00000060  w    F .text	0000002c weakfn
00000000 g     F .init.text	0000002b initfn
00000000 g     F .text.unlikely	00000028 coldfn


RELOCATION RECORDS FOR [.text]:
OFFSET   TYPE              VALUE
00000005 R_386_PC32        __x86.get_pc_thunk.bx
0000000b R_386_GOTPC       _GLOBAL_OFFSET_TABLE_
00000014 R_386_GOT32X      mcount
0000001c R_386_PLT32       ext
00000035 R_386_PC32        __x86.get_pc_thunk.bx
0000003b R_386_GOTPC       _GLOBAL_OFFSET_TABLE_
00000044 R_386_GOT32X      mcount
00000065 R_386_PC32        __x86.get_pc_thunk.bx
0000006b R_386_GOTPC       _GLOBAL_OFFSET_TABLE_
00000074 R_386_GOT32X      mcount
00000080 R_386_PLT32       ext


RELOCATION RECORDS FOR [.init.text]:
OFFSET   TYPE              VALUE
00000005 R_386_PC32        __x86.get_pc_thunk.bx
0000000b R_386_GOTPC       _GLOBAL_OFFSET_TABLE_
00000014 R_386_GOT32X      mcount
0000001c R_386_PLT32       ext


RELOCATION RECORDS FOR [.text.unlikely]:
OFFSET   TYPE              VALUE
00000005 R_386_PC32        __x86.get_pc_thunk.bx
0000000b R_386_GOTPC       _GLOBAL_OFFSET_TABLE_
00000014 R_386_GOT32X      mcount
0000001c R_386_PLT32       ext


RELOCATION RECORDS FOR [.eh_frame]:
OFFSET   TYPE              VALUE
00000020 R_386_PC32        .text
00000044 R_386_PC32        .text
00000068 R_386_PC32        .text
0000008c R_386_PC32        .init.text
000000b0 R_386_PC32        .text.unlikely
000000d4 R_386_PC32        .text.__x86.get_pc_thunk.bx


