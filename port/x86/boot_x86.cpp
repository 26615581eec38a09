// Start-up of talus's bare-metal x86 port (32-bit, Multiboot 1; QEMU -kernel, GRUB).
//
// _start runs in 32-bit protected mode, paging off, interrupts off (IF = 0), with
// EAX = 0x2BADB002 and EBX = the Multiboot information (unused). In order:
//   1. the stack (__stack_top, multiboot.ld), a flat GDT of our own (code 0x08, data 0x10;
//      the loader's GDTR is unspecified) and the segment registers reloaded;
//   2. .bss zeroed (rep stosb);
//   3. x87 and SSE on before any floating-point instruction: CR0.EM = 0, CR0.TS = 0,
//      CR0.MP = 1, CR0.NE = 1 (x87 errors as #MF, not the legacy IRQ 13); CR4.OSFXSR = 1,
//      CR4.OSXMMEXCPT = 1 (SSE instructions, SIMD exceptions as #XM); fninit; MXCSR keeps its
//      reset value 0x1F80 (round to nearest, every exception masked);
//   4. talus_x86_init (port_x86.cpp): the IDT (faults), the 8259s masked, COM1, the clock,
//      then the static constructors (.init_array);
//   5. main() with the stack 16-byte aligned at the call (i386 System V ABI), then
//      talus::port::exit(main's value) (talus_x86_exit), which leaves QEMU through
//      isa-debug-exit.
// Exceptions 0-31 enter talus_x86_exception (port_x86.cpp) through the stubs at the end,
// with a uniform frame: vector, error code (0 when the CPU pushes none), EIP, CS, EFLAGS.
//
// The code is a file-scope asm block (GNU as, AT&T syntax) in a C++ file, so that the port
// needs no ASM language in the consumer's CMake project.
// clang-format off
asm(R"talus_boot(
    .set MB_MAGIC, 0x1BADB002
    .set MB_FLAGS, 0x00000003 /* page-aligned modules, memory information */

    /* The Multiboot header must lie in the first 8 KiB of the file: multiboot.ld keeps
       .multiboot first, and the link drops the build-id note (--build-id=none) that Debian's
       gcc would otherwise put before it. */
    .section .multiboot, "a"
    .p2align 2
    .long MB_MAGIC
    .long MB_FLAGS
    .long -(MB_MAGIC + MB_FLAGS)

    .section .text.boot, "ax"
    .globl _start
    .type _start, @function
_start:
    cld
    mov   $__stack_top, %esp
    /* 1. flat GDT */
    lgdt  talus_x86_gdt_descriptor
    ljmp  $0x08, $1f
1:  mov   $0x10, %ax
    mov   %ax, %ds
    mov   %ax, %es
    mov   %ax, %ss
    mov   %ax, %fs
    mov   %ax, %gs
    /* 2. .bss = 0 (the stack is in .bss too: nothing is on it yet) */
    mov   $__bss_start, %edi
    mov   $__bss_end, %ecx
    sub   %edi, %ecx
    xor   %eax, %eax
    rep stosb
    /* 3. x87 and SSE */
    mov   %cr0, %eax
    and   $~0x0000000C, %eax /* EM (bit 2), TS (bit 3) off */
    or    $0x00000022, %eax  /* MP (bit 1), NE (bit 5) on */
    mov   %eax, %cr0
    mov   %cr4, %eax
    or    $0x00000600, %eax  /* OSFXSR (bit 9), OSXMMEXCPT (bit 10) */
    mov   %eax, %cr4
    fninit
    /* 4., 5. */
    and   $-16, %esp
    call  talus_x86_init
    and   $-16, %esp
    call  main
    and   $-16, %esp
    sub   $12, %esp
    push  %eax
    call  talus_x86_exit
2:  cli
    hlt
    jmp   2b
    .size _start, . - _start

/* Exception stubs: the CPU pushes an error code for vectors 8, 10-14, 17, 21, 29, 30;
   the others get a 0 so that every frame looks the same. */
.macro TALUS_EXC_NOERR n
    .globl talus_x86_exc\n
talus_x86_exc\n:
    push  $0
    push  $\n
    jmp   talus_x86_exc_common
.endm
.macro TALUS_EXC_ERR n
    .globl talus_x86_exc\n
talus_x86_exc\n:
    push  $\n
    jmp   talus_x86_exc_common
.endm

    .section .text.talus_x86_exc, "ax"
    TALUS_EXC_NOERR 0
    TALUS_EXC_NOERR 1
    TALUS_EXC_NOERR 2
    TALUS_EXC_NOERR 3
    TALUS_EXC_NOERR 4
    TALUS_EXC_NOERR 5
    TALUS_EXC_NOERR 6
    TALUS_EXC_NOERR 7
    TALUS_EXC_ERR   8
    TALUS_EXC_NOERR 9
    TALUS_EXC_ERR   10
    TALUS_EXC_ERR   11
    TALUS_EXC_ERR   12
    TALUS_EXC_ERR   13
    TALUS_EXC_ERR   14
    TALUS_EXC_NOERR 15
    TALUS_EXC_NOERR 16
    TALUS_EXC_ERR   17
    TALUS_EXC_NOERR 18
    TALUS_EXC_NOERR 19
    TALUS_EXC_NOERR 20
    TALUS_EXC_ERR   21
    TALUS_EXC_NOERR 22
    TALUS_EXC_NOERR 23
    TALUS_EXC_NOERR 24
    TALUS_EXC_NOERR 25
    TALUS_EXC_NOERR 26
    TALUS_EXC_NOERR 27
    TALUS_EXC_NOERR 28
    TALUS_EXC_ERR   29
    TALUS_EXC_ERR   30
    TALUS_EXC_NOERR 31
    /* Any other vector (an interrupt nobody installed): vector 255 in the report. */
    TALUS_EXC_NOERR 255

talus_x86_exc_common:
    /* Never returns: the fault is reported and the program ends. The stack may be the
       faulting one; keep the frame pointer, realign, pass it. */
    mov   %esp, %eax
    and   $-16, %esp
    sub   $12, %esp
    push  %eax
    call  talus_x86_exception
3:  cli
    hlt
    jmp   3b

/* Stub addresses for the IDT (port_x86.cpp): 32 exceptions, then the catch-all. */
    .section .rodata.talus_x86_exc_table, "a"
    .p2align 2
    .globl talus_x86_exc_table
talus_x86_exc_table:
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,255
    .long talus_x86_exc\n
    .endr

/* Flat GDT: null, code (0x08: base 0, limit 4 GiB, ring 0, 32-bit), data (0x10). */
    .section .rodata.talus_x86_gdt, "a"
    .p2align 3
talus_x86_gdt:
    .quad 0x0000000000000000
    .quad 0x00CF9A000000FFFF
    .quad 0x00CF92000000FFFF
talus_x86_gdt_descriptor:
    .word talus_x86_gdt_descriptor - talus_x86_gdt - 1
    .long talus_x86_gdt

    .text
)talus_boot");
// clang-format on
