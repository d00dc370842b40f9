# Instructions of every form the x86 length decoder (src/disasm/insnlen.c)
# knows, for tests/ref/gen_x86len.sh; 64-bit mode.
	.text
	.allow_index_reg
# FP16 maps 5/6
	vaddph %zmm28, %zmm29, %zmm30
	vaddph 0x10000000(%rbp,%r14,8), %zmm29, %zmm30{%k7}
	vaddph (%r9){1to32}, %zmm29, %zmm30
	vcmpph $123, 8128(%rcx), %zmm29, %k5
	vfmadd132ph -256(%rdx){1to32}, %zmm29, %zmm30{%k7}{z}
	vcvtsh2si 254(%rcx), %r12
	vgetmantph $123, (%r9){1to32}, %zmm30
	vfcmaddcph %zmm28, %zmm29, %zmm30
	vmovw %xmm30, %eax
	vmovsh (%rcx), %xmm30
	vrcpph %zmm29, %zmm30
	vfpclassphz $123, 8128(%rcx), %k5
# AMX
	ldtilecfg (%rsi)
	sttilecfg 0x10(%rsi,%rdi,4)
	tileloadd (%rsi,%rdi,2), %tmm3
	tileloaddt1 0x100(%rax,%rbx,1), %tmm1
	tdpbssd %tmm1, %tmm2, %tmm3
	tdpbf16ps %tmm4, %tmm5, %tmm6
	tilestored %tmm3, (%rsi,%rdi,1)
	tilezero %tmm7
	tilerelease
# VNNI, IFMA, NE-CONVERT, CMPCCXADD
	{vex} vpdpbusd %ymm2, %ymm4, %ymm2
	{vex} vpdpwssds (%rcx), %xmm4, %xmm2
	vpmadd52luq %ymm2, %ymm4, %ymm2
	cmpbexadd %eax, %ecx, (%rsi)
	cmpoxadd %rax, %rcx, 0x1234(%rsi,%rdi,8)
	vbcstnesh2ps (%rax), %ymm3
	vcvtneps2bf16 %ymm1, %xmm3
# XOP / FMA4 / TBM / LWP
	vfmaddps %xmm4, %xmm6, %xmm2, %xmm7
	vfmaddps (%rcx), %ymm6, %ymm2, %ymm7
	vpcmov %xmm4, %xmm6, %xmm2, %xmm7
	vpperm (%rax), %xmm6, %xmm2, %xmm7
	vprotd $3, %xmm6, %xmm7
	vprotb (%rax,%rbx,2), %xmm6, %xmm7
	vpcomb $5, %xmm4, %xmm6, %xmm2
	vfrczps %ymm6, %ymm7
	vphaddbd 0x12(%rax), %xmm7
	bextr $0x1234, %eax, %ebx
	bextr $0x1234, (%rax), %rbx
	blcfill %eax, %ebx
	lwpins $0x12345678, %eax, %ebx
	lwpval $0x12345678, (%rax), %rbx
	llwpcb %eax
# 3DNow!
	pfadd %mm1, %mm2
	pfmul (%rax), %mm2
	pfrcp 0x10(%rax,%rbx,4), %mm3
	femms
	prefetchw (%rax)
# SSE4a
	extrq $4, $5, %xmm1
	insertq $4, $5, %xmm1, %xmm2
	extrq %xmm2, %xmm1
	insertq %xmm2, %xmm1
	movntsd %xmm1, (%rax)
# legacy oddities
	movabs 0x1122334455667788, %al
	movabs 0x1122334455667788, %rax
	movabs %eax, 0x1122334455667788
	addr32 mov 0x11223344, %eax
	movabs $0x1122334455667788, %r9
	mov $0x1234, %ax
	enter $0x10, $2
	ret $8
	lret $8
	testb $1, (%rax)
	testw $1, (%rax)
	testl $1, 0x1000(%rax)
	testq $1, (%rax)
	notl (%rax)
	negw 0x10(%rax)
	imul $0x1234, %ax, %bx
	imul $5, (%rax), %ebx
	pushw $0x1234
	push $0x12345678
	push $3
	data16 call .+0x100
	jmp .+0x10000
	jne .+0x10000
	xbegin .+0x100
	xabort $3
	mov %cr3, %rax
	mov %rax, %cr0
	mov %dr7, %rax
	lock addl $1, (%rax)
	rep stosq
	repne scasb
	fs mov (%rax), %eax
	movq %gs:0x28, %rax
	nopw %cs:0x0(%rax,%rax,1)
	.byte 0x66,0x66,0x2e,0x0f,0x1f,0x84,0,0,0,0,0
	mov (%rip), %eax
	mov 0x12345678(,%rax,4), %eax
	mov (,%rax,4), %eax
	mov (%rbp), %eax
	mov (%r13), %eax
	mov (%rsp), %eax
	mov (%r12), %eax
	mov 0x12(%rsp,%rbx,2), %eax
	lea 0x80(%rip), %rax
	int $3
	int3
	int $0x80
	in $0x60, %al
	out %al, $0x60
	loop .
	jrcxz .
	fld (%rax)
	fstp %st(1)
	faddp
	fnstsw %ax
	fldt 0x10(%rax)
	cmpxchg16b (%rax)
	rdrand %eax
	rdseed %rax
	xgetbv
	rdtscp
	swapgs
	syscall
	sysret
	ud2
	ud1 (%rax), %eax
	ud0 (%rax), %eax
	bswap %eax
	bswap %r9
	popcnt %eax, %ebx
	lzcnt (%rax), %ebx
	tzcnt %rax, %rbx
	crc32b %al, %ebx
	crc32q (%rax), %rbx
	movbe (%rax), %eax
	adcx %eax, %ebx
	adox (%rax), %rbx
	shld $3, %eax, %ebx
	shrd %cl, %eax, (%rax)
	bt $3, %eax
	btsq $3, (%rax)
	cmovne %eax, %ebx
	setg %al
	sete (%rax)
	pinsrw $2, %eax, %xmm1
	pextrw $3, %xmm1, %eax
	shufps $0x1b, %xmm1, %xmm2
	cmpps $2, (%rax), %xmm2
	pshufd $0x1b, %xmm1, %xmm2
	psrlw $3, %xmm1
	psllq $3, %mm1
	palignr $3, %xmm1, %xmm2
	pclmulqdq $0x11, %xmm1, %xmm2
	aesenc (%rax), %xmm2
	sha1rnds4 $3, %xmm1, %xmm2
	sha256rnds2 %xmm0, %xmm1, %xmm2
	gf2p8affineqb $3, %xmm1, %xmm2
	gf2p8mulb %xmm1, %xmm2
	roundps $3, %xmm1, %xmm2
	pblendvb %xmm0, %xmm1, %xmm2
	dpps $3, (%rax), %xmm2
	movdiri %eax, (%rax)
	movdir64b (%rax), %rbx
	enqcmd (%rax), %rbx
	serialize
	tpause %eax
	umonitor %rax
	umwait %eax
	cldemote (%rax)
	clwb (%rax)
	clflushopt (%rax)
	wbnoinvd
	pconfig
	rdpid %rax
	ptwrite %eax
	ptwrite (%rax)
	endbr64
	endbr32
	rdsspq %rax
	incsspq %rcx
	saveprevssp
	rstorssp (%rax)
	wrssq %rax, (%rbx)
	wrussd %eax, (%rbx)
	setssbsy
	clrssbsy (%rax)
	notrack jmp *%rax
	bnd ret
	hreset $1
	senduipi %rax
	uiret
	testui
	clui
	stui
	encodekey128 %eax, %ebx
	aesenc128kl (%rax), %xmm1
	aesencwide128kl (%rax)
	wrmsrns
	rdmsrlist
	wrmsrlist
	prefetchit0 (%rip)
	prefetchit1 0x10(%rip)
	aadd %eax, (%rax)
	aand %rax, (%rax)
	invpcid (%rax), %rbx
	vmcall
	vmread %rax, %rbx
	vmwrite (%rax), %rbx
	vmptrld (%rax)
	xsave (%rax)
	xrstor64 (%rax)
	xsaveopt64 (%rax)
	fxsave64 (%rax)
	monitorx
	mwaitx
	clzero
	rdpru
	invlpgb
	tlbsync
	pvalidate
	rmpupdate
	psmash
	vmgexit
	mcommit
	rdpkru
	wrpkru
# VEX / EVEX assorted
	vzeroupper
	vzeroall
	kmovd %k0, %eax
	kmovq %k1, %rax
	kmovw %eax, %k1
	kmovb (%rax), %k2
	kortestd %k1, %k2
	kandnq %k1, %k2, %k3
	kshiftlq $3, %k1, %k2
	kunpckdq %k1, %k2, %k3
	vpcmpeqb (%rdi), %ymm16, %k0
	vpcmpub $4, %zmm17, %zmm16, %k1{%k2}
	vpternlogd $0xde, %ymm24, %ymm22, %ymm23
	vpbroadcastb %eax, %ymm16
	vpbroadcastq %rax, %zmm31
	vpermt2b %zmm1, %zmm2, %zmm3
	vpshufbitqmb %zmm1, %zmm2, %k3
	vpdpbusd 0x40(%rax){1to16}, %zmm2, %zmm3
	vgatherdps 0x10(%rax,%zmm1,4), %zmm2{%k1}
	vscatterqpd %zmm2, 0x10(%rax,%zmm1,8){%k1}
	vpsrlq $3, %zmm1, %zmm2
	vpsrldq $3, %zmm1, %zmm2
	vpshufd $3, (%rax){1to16}, %zmm2
	vcmppd $3, %zmm1, %zmm2, %k3
	vshufps $3, %zmm1, %zmm2, %zmm3
	vpinsrw $3, %eax, %xmm1, %xmm2
	vpextrw $3, %xmm1, %eax
	vextracti32x4 $1, %zmm1, %xmm2
	vinserti64x4 $1, (%rax), %zmm1, %zmm2
	vaddps {rn-sae}, %zmm1, %zmm2, %zmm3
	vgatherdps %ymm1, 0x10(%rax,%ymm2,4), %ymm3
	vpgatherqq %xmm1, (%rax,%xmm2,8), %xmm3
	vpclmulqdq $0x11, %zmm1, %zmm2, %zmm3
	vaesenc %zmm1, %zmm2, %zmm3
	vgf2p8affineinvqb $3, %zmm1, %zmm2, %zmm3
	vcvtne2ps2bf16 %zmm1, %zmm2, %zmm3
	vdpbf16ps %zmm1, %zmm2, %zmm3
	vp2intersectd %zmm1, %zmm2, %k3
	vpopcntb %zmm1, %zmm2
	vpcompressb %zmm1, (%rax)
	vpshldvq %zmm1, %zmm2, %zmm3
	vpshldq $3, %zmm1, %zmm2, %zmm3
	v4fmaddps (%rax), %zmm4, %zmm1
	vexp2ps %zmm1, %zmm2
	vgatherpf0dps 0x10(%rax,%zmm1,4){%k1}
	vfmadd231pd %ymm1, %ymm2, %ymm3
	vfmadd213sd (%rax), %xmm2, %xmm3
	vblendvps %ymm1, %ymm2, %ymm3, %ymm4
	vpblendvb %xmm1, (%rax), %xmm3, %xmm4
	vperm2i128 $3, %ymm1, %ymm2, %ymm3
	vpermq $3, %ymm1, %ymm2
	vpsllvd %ymm1, %ymm2, %ymm3
	vcvtph2ps %xmm1, %ymm2
	vcvtps2ph $3, %ymm1, (%rax)
	andn %eax, %ebx, %ecx
	bextr %eax, (%rbx), %ecx
	bzhi %rax, %rbx, %rcx
	pdep %eax, %ebx, %ecx
	rorx $3, %eax, %ebx
	sarx %eax, (%rbx), %ecx
	mulx %rax, %rbx, %rcx
	blsr %eax, %ebx
	vmovdqu8 %zmm1, %zmm2{%k1}{z}
	vmovdqu64 (%rax), %zmm31
	vmovaps %zmm1, 0x12345678(%rax,%r15,8)
	vmovss 0x4(%rax), %xmm16
	vpmovm2b %k1, %zmm1
	vpmovb2m %zmm1, %k1
	vcvttss2usi %xmm1, %rax
	vpmullq %zmm0, %zmm1, %zmm2
	vdivpd %zmm0, %zmm1, %zmm2
	vrndscalesd $3, %xmm1, %xmm2, %xmm3
	vfixupimmps $3, %zmm1, %zmm2, %zmm3
	vreducess $3, %xmm1, %xmm2, %xmm3
	vrangepd $3, %zmm1, %zmm2, %zmm3
	vdbpsadbw $3, %zmm1, %zmm2, %zmm3
	valignq $3, %zmm1, %zmm2, %zmm3
	vpmultishiftqb %zmm1, %zmm2, %zmm3
	vpconflictd %zmm1, %zmm2
	vpermi2w %zmm1, %zmm2, %zmm3
	vpsravw %zmm1, %zmm2, %zmm3
	vpsrlvw %zmm1, %zmm2, %zmm3
	vcvtusi2sd %rax, %xmm1, %xmm2
	vpabsq %zmm1, %zmm2
	vpmadd52huq %zmm1, %zmm2, %zmm3
	vpexpandw %zmm1, %zmm2
	vpdpwssd %zmm1, %zmm2, %zmm3
	vpshufb %zmm1, %zmm2, %zmm3
	vpmaxub %ymm17, %ymm18, %ymm19
	vpminub (%rax), %ymm18, %ymm19
