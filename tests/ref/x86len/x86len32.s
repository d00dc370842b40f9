# The same for 32-bit mode (as --32), with its own opcodes (far calls,
# les/lds, bound, 16-bit addressing).
	.text
	.code32
	push %es
	pop %ds
	daa
	aaa
	pusha
	popa
	bound %eax, (%ebx)
	arpl %ax, (%ebx)
	lcall $0x10, $0x12345678
	ljmp $0x10, $0x12345678
	lcallw $0x10, $0x1234
	les (%eax), %ebx
	lds 0x10(%eax), %ebx
	into
	aam $10
	aad $10
	inc %eax
	dec %ebx
	mov 0x12345678, %al
	mov 0x1234, %eax
	addr16 mov 0x1234, %eax
	addr16 mov (%bx,%si), %eax
	addr16 mov 0x12(%bp,%di), %eax
	addr16 mov 0x1234(%bx), %eax
	addr16 lea 0x1234, %eax
	mov $0x12345678, %eax
	mov $0x1234, %ax
	push $0x1234
	pushw $0x12
	call .+0x100
	jmp .+0x100
	vaddps %ymm1, %ymm2, %ymm3
	vaddps (%eax), %ymm2, %ymm3
	vpxor %xmm1, %xmm2, %xmm3
	vaddps %zmm1, %zmm2, %zmm3
	vaddps 0x40(%eax){1to16}, %zmm2, %zmm3{%k1}
	kmovd %k0, %eax
	vpcmpeqb (%edi), %ymm6, %k0
	vpermq $3, %ymm1, %ymm2
	vfmaddps %xmm4, %xmm6, %xmm2, %xmm7
	vpperm (%eax), %xmm6, %xmm2, %xmm7
	bextr $0x1234, %eax, %ebx
	pop (%eax)
	pop 0x10(%eax)
	mov %cr0, %eax
	mov %eax, %dr7
	fld (%eax)
	movsb
	rep movsl
	int $0x80
	sysenter
	enter $4, $0
	testl $1, (%eax)
	testb $1, %al
	test $1, %eax
	lock cmpxchg8b (%eax)
	mov %fs:0x14, %eax
	mov %gs:(%eax), %eax
	vzeroupper
	vaddph %zmm1, %zmm2, %zmm3
