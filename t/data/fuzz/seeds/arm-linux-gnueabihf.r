
seed.o:     file format elf32-littlearm

Sections:
Idx Name          Size      VMA       LMA       File off  Algn
  0 .text         00000030  00000000  00000000  00000034  2**2
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  1 .data         00000000  00000000  00000000  00000064  2**0
                  CONTENTS, ALLOC, LOAD, DATA
  2 .bss          00000000  00000000  00000000  00000064  2**0
                  ALLOC
  3 .init.text    00000010  00000000  00000000  00000064  2**2
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  4 .text.unlikely 0000000a  00000000  00000000  00000074  2**1
                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE
  5 .comment      00000020  00000000  00000000  0000007e  2**0
                  CONTENTS, READONLY
  6 .note.GNU-stack 00000000  00000000  00000000  0000009e  2**0
                  CONTENTS, READONLY
  7 .ARM.attributes 00000033  00000000  00000000  0000009e  2**0
                  CONTENTS, READONLY
SYMBOL TABLE:
00000000 l    df *ABS*	00000000 seed.c
00000000 l    d  .text	00000000 .text
00000000 l    d  .data	00000000 .data
00000000 l    d  .bss	00000000 .bss
00000000 l     F .text	00000012 helper
00000000 l    d  .init.text	00000000 .init.text
00000000 l    d  .text.unlikely	00000000 .text.unlikely
00000000 l    d  .note.GNU-stack	00000000 .note.GNU-stack
00000000 l    d  .comment	00000000 .comment
00000000 l    d  .ARM.attributes	00000000 .ARM.attributes
00000000         *UND*	00000000 __gnu_mcount_nc
00000000         *UND*	00000000 ext
00000014 g     F .text	00000010 pub
00000024  w    F .text	0000000c weakfn
00000000 g     F .init.text	00000010 initfn
00000000 g     F .text.unlikely	0000000a coldfn


RELOCATION RECORDS FOR [.text]:
OFFSET   TYPE              VALUE
00000004 R_ARM_THM_CALL    __gnu_mcount_nc
00000008 R_ARM_THM_CALL    ext
00000018 R_ARM_THM_CALL    __gnu_mcount_nc
00000026 R_ARM_THM_CALL    __gnu_mcount_nc
0000002c R_ARM_THM_JUMP24  ext


RELOCATION RECORDS FOR [.init.text]:
OFFSET   TYPE              VALUE
00000004 R_ARM_THM_CALL    __gnu_mcount_nc
00000008 R_ARM_THM_CALL    ext


RELOCATION RECORDS FOR [.text.unlikely]:
OFFSET   TYPE              VALUE
00000002 R_ARM_THM_CALL    __gnu_mcount_nc
00000006 R_ARM_THM_JUMP24  ext


