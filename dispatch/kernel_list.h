/*
 * Every kernel compiled into qmm, one entry each, which is its descriptor:
 *
 *   QMM_KERNEL(name, RUN_ROWS or NO_RUN_ROWS, HOOKS or NO_HOOKS,
 *              RUN_OVERLAP or NO_RUN_OVERLAP, U8A or NO_U8A,
 *              .isa = ..., .mr = ..., .nr = ..., .rank = ..., .a_format = ...,
 *              .b_format = ..., .features = ..., .depth_l1s = ...)
 *
 * name         the kernel's name; its code (one file under kernels/) defines
 *              qmm_<name>_run, a qmm_ukernel_fn (kernels/kernel.h)
 *
 * The four words after it say which optional microkernels that code also
 * defines, for the registry to declare and set (dispatch/registry.c, by token
 * pasting), each as NO_<word> when it does not; each is spelled for its
 * place, so that one written in another's place does not compile:
 *
 * RUN_ROWS     qmm_<name>_run_rows, the partial-rows microkernel (a
 *              qmm_ukernel_rows_fn)
 * HOOKS        qmm_<name>_begin and qmm_<name>_end, the job hooks around a
 *              thread's tiles (kernels/kernel.h)
 * RUN_OVERLAP  qmm_<name>_run_overlap, which runs other work (the stage of
 *              the tile before) while its tile's multiply-adds are in flight
 *              (kernels/kernel.h)
 * U8A          qmm_<name>_u8a_run (and the _u8a_ forms of run_rows and
 *              run_overlap where it has those): its twin reading A's bytes as
 *              uint8, which a product with a uint8 A runs instead of flipping
 *              A to int8 first (kernels/kernel.h)
 *
 * The rest are fields of its qmm_kernel (kernels/kernel.h) by name:
 *
 * .rank        expected speed on full tiles, relative to the portable kernels'
 *              10: measured (time on x86, executed instructions under QEMU on
 *              arm64) against the portable kernel of the same role, on whole
 *              calls for matrix kernels and on plan runs (A packed once) for
 *              GEMV kernels, whose A is a layer's weights
 * .a_format, .b_format
 *              entries of the packing format table (pack/pack.h)
 * .features    what is_supported_here() requires (platform/cpu.h), 0 for none:
 *              the kernel's own tier alone. The tiers below it are the feature
 *              table's to require (platform/cpu.c: a tier is in effect only
 *              when the one below it is), so that the rule is stated once:
 *              naming them here as well would change no choice, only add a
 *              second statement of the tiers for each new kernel to keep in
 *              step
 * .depth_l1s   how many L1 data caches' worth of depths a packed B panel may
 *              span (compute/blocking.c): 2 where measured faster than 1
 * .vector, .scales
 *              only for a vector-length-agnostic kernel: the feature whose
 *              vector length scales the tile and the dimensions it scales
 *              (kernels/kernel.h): QMM_CPU_SVE with QMM_SCALES_N (nr grows
 *              with SVE's vectors) or QMM_SCALES_M (mr does), QMM_CPU_SME with
 *              both (the streaming vector length). .mr, .nr and .rank are then
 *              those at 128-bit vectors, and the kernel's name says the tile
 *              in vectors ("8x2vl": 8 rows by two vectors of int32 lanes)
 *
 * The registry sets the other fields (the name, the microkernels, the twin).
 * Entries are guarded by the architecture their code is built for. The order
 * is what `qmm-bench --list` shows; the selector never depends on it.
 */
QMM_KERNEL(generic_mmm_i8i32_3x4, NO_RUN_ROWS, NO_HOOKS, NO_RUN_OVERLAP, NO_U8A,
           .isa = "generic", .mr = 3, .nr = 4, .rank = 10,
           .a_format = &qmm_pack_formats[QMM_PACK_I16_KIN16],
           .b_format = &qmm_pack_formats[QMM_PACK_I16_KIN16],
           .features = 0, .depth_l1s = 1)
QMM_KERNEL(generic_mmv_i8i32_4x1, NO_RUN_ROWS, NO_HOOKS, NO_RUN_OVERLAP, NO_U8A,
           .isa = "generic", .mr = 4, .nr = 1, .rank = 10,
           .a_format = &qmm_pack_formats[QMM_PACK_I8_KIN16],
           .b_format = &qmm_pack_formats[QMM_PACK_I16_KIN16],
           .features = 0, .depth_l1s = 1)
#if defined(__x86_64__)
/* x86_64: kernels/x86_64/; the *_avx2.c files alone are compiled with -mavx2
 * (cmake/kernels_x86_64.cmake), the library itself targets baseline x86-64. */
QMM_KERNEL(x86_64_mmm_i8i32_6x16_avx2, RUN_ROWS, NO_HOOKS, NO_RUN_OVERLAP, NO_U8A,
           .isa = "avx2", .mr = 6, .nr = 16, .rank = 20,
           .a_format = &qmm_pack_formats[QMM_PACK_I16_K2],
           .b_format = &qmm_pack_formats[QMM_PACK_I16_K2],
           .features = QMM_CPU_AVX2, .depth_l1s = 1)
QMM_KERNEL(x86_64_mmv_i8i32_8x1_avx2, NO_RUN_ROWS, NO_HOOKS, NO_RUN_OVERLAP, NO_U8A,
           .isa = "avx2", .mr = 8, .nr = 1, .rank = 12,
           .a_format = &qmm_pack_formats[QMM_PACK_I8_KIN16],
           .b_format = &qmm_pack_formats[QMM_PACK_I16_KIN16],
           .features = QMM_CPU_AVX2, .depth_l1s = 1)
QMM_KERNEL(x86_64_mmm_i8i32_12x32_avx512vnni, RUN_ROWS, NO_HOOKS, NO_RUN_OVERLAP, U8A,
           .isa = "avx512vnni", .mr = 12, .nr = 32, .rank = 85,
           .a_format = &qmm_pack_formats[QMM_PACK_I8_KIN16],
           .b_format = &qmm_pack_formats[QMM_PACK_I8_K4_SUMS],
           .features = QMM_CPU_AVX512VNNI, .depth_l1s = 2)
QMM_KERNEL(x86_64_mmv_i8i32_16x1_avx512vnni, NO_RUN_ROWS, NO_HOOKS, NO_RUN_OVERLAP, NO_U8A,
           .isa = "avx512vnni", .mr = 16, .nr = 1, .rank = 33,
           .a_format = &qmm_pack_formats[QMM_PACK_I8_KIN64],
           .b_format = &qmm_pack_formats[QMM_PACK_I8_KIN64],
           .features = QMM_CPU_AVX512VNNI, .depth_l1s = 1)
/* AMX-INT8 (*_amx.c), the tier above VNNI. Rank measured on a 2-vCPU AMX
 * Xeon, one thread, whole calls: 16-23x the portable 3x4 kernel at 1024^3,
 * 256^3 and the MiniLM shapes (1.9-3.5x the VNNI kernel). */
QMM_KERNEL(x86_64_mmm_i8i32_32x32_amx, RUN_ROWS, HOOKS, RUN_OVERLAP, U8A,
           .isa = "amx", .mr = 32, .nr = 32, .rank = 200,
           .a_format = &qmm_pack_formats[QMM_PACK_I8_KIN64],
           .b_format = &qmm_pack_formats[QMM_PACK_I8_K4],
           .features = QMM_CPU_AMX, .depth_l1s = 2)
#endif
#if defined(__aarch64__)
/* arm64: kernels/arm64/. Kernels on an extension are built only when the
 * assembler knows it (cmake/kernels_arm64.cmake defines QMM_HAVE_DOTPROD,
 * QMM_HAVE_I8MM, QMM_HAVE_SVE, QMM_HAVE_SVE_I8MM and QMM_HAVE_SME). The tiers
 * go NEON < dotprod < i8mm < sme and NEON < sve < svei8mm (platform/cpu.c).
 * At 128-bit vectors an SVE kernel ranks just below the NEON kernel of its
 * instruction, which then keeps the shapes it has today; each doubling of
 * the vector length doubles its rank (SVE) or quadruples it (SME's tile). */
QMM_KERNEL(arm64_mmm_i8i32_8x8_smlal, NO_RUN_ROWS, NO_HOOKS, NO_RUN_OVERLAP, NO_U8A,
           .isa = "neon", .mr = 8, .nr = 8, .rank = 17,
           .a_format = &qmm_pack_formats[QMM_PACK_I8_K1],
           .b_format = &qmm_pack_formats[QMM_PACK_I8_K1],
           .features = QMM_CPU_NEON, .depth_l1s = 1)
#if defined(QMM_HAVE_DOTPROD)
QMM_KERNEL(arm64_mmm_i8i32_8x8_sdot, NO_RUN_ROWS, NO_HOOKS, NO_RUN_OVERLAP, NO_U8A,
           .isa = "neon+dotprod", .mr = 8, .nr = 8, .rank = 70,
           .a_format = &qmm_pack_formats[QMM_PACK_I8_K4],
           .b_format = &qmm_pack_formats[QMM_PACK_I8_K4],
           .features = QMM_CPU_DOTPROD, .depth_l1s = 1)
#endif
#if defined(QMM_HAVE_I8MM)
QMM_KERNEL(arm64_mmm_i8i32_8x8_smmla, RUN_ROWS, NO_HOOKS, NO_RUN_OVERLAP, NO_U8A,
           .isa = "neon+i8mm", .mr = 8, .nr = 8, .rank = 120,
           .a_format = &qmm_pack_formats[QMM_PACK_I8_K8],
           .b_format = &qmm_pack_formats[QMM_PACK_I8_K8],
           .features = QMM_CPU_I8MM, .depth_l1s = 1)
#endif
#if defined(QMM_HAVE_SVE)
QMM_KERNEL(arm64_mmm_i8i32_8x2vl_sve_sdot, NO_RUN_ROWS, NO_HOOKS, NO_RUN_OVERLAP, NO_U8A,
           .isa = "sve", .mr = 8, .nr = 8, .rank = 65,
           .a_format = &qmm_pack_formats[QMM_PACK_I8_K4],
           .b_format = &qmm_pack_formats[QMM_PACK_I8_K4],
           .features = QMM_CPU_SVE, .depth_l1s = 1,
           .vector = QMM_CPU_SVE, .scales = QMM_SCALES_N)
#endif
#if defined(QMM_HAVE_SVE_I8MM)
QMM_KERNEL(arm64_mmm_i8i32_8x2vl_sve_smmla, NO_RUN_ROWS, NO_HOOKS, NO_RUN_OVERLAP, NO_U8A,
           .isa = "sve+i8mm", .mr = 8, .nr = 8, .rank = 110,
           .a_format = &qmm_pack_formats[QMM_PACK_I8_K8],
           .b_format = &qmm_pack_formats[QMM_PACK_I8_K8],
           .features = QMM_CPU_SVE_I8MM, .depth_l1s = 1,
           .vector = QMM_CPU_SVE, .scales = QMM_SCALES_N)
#endif
#if defined(QMM_HAVE_SME)
QMM_KERNEL(arm64_mmm_i8i32_2vlx2vl_sme_smopa, NO_RUN_ROWS, NO_HOOKS, NO_RUN_OVERLAP, NO_U8A,
           .isa = "sme", .mr = 8, .nr = 8, .rank = 150,
           .a_format = &qmm_pack_formats[QMM_PACK_I8_K4],
           .b_format = &qmm_pack_formats[QMM_PACK_I8_K4],
           .features = QMM_CPU_SME, .depth_l1s = 1,
           .vector = QMM_CPU_SME, .scales = QMM_SCALES_M | QMM_SCALES_N)
#endif
QMM_KERNEL(arm64_mmv_i8i32_64x1, NO_RUN_ROWS, NO_HOOKS, NO_RUN_OVERLAP, NO_U8A,
           .isa = "neon", .mr = 64, .nr = 1, .rank = 14,
           .a_format = &qmm_pack_formats[QMM_PACK_I8_K1],
           .b_format = &qmm_pack_formats[QMM_PACK_I8_K1],
           .features = QMM_CPU_NEON, .depth_l1s = 1)
#if defined(QMM_HAVE_DOTPROD)
QMM_KERNEL(arm64_mmv_i8i32_8x1_sdot, NO_RUN_ROWS, NO_HOOKS, NO_RUN_OVERLAP, NO_U8A,
           .isa = "neon+dotprod", .mr = 8, .nr = 1, .rank = 60,
           .a_format = &qmm_pack_formats[QMM_PACK_I8_KIN16],
           .b_format = &qmm_pack_formats[QMM_PACK_I8_KIN16],
           .features = QMM_CPU_DOTPROD, .depth_l1s = 1)
#endif
/* The SVE GEMV reads A packed (i8_k4): on plan runs (A packed once) at
 * 4096x4096x1 it executes 0.98x the dotprod GEMV's instructions at 128 bits
 * (ld4w's de-interleave costs cores more than a plain load: the dotprod GEMV
 * keeps 128 bits), 0.50x at 256 and 0.25x at 512. A one-shot call packs A
 * each time, which the selector weighs (dispatch/select.c): there the
 * dotprod GEMV, reading a row-major A in place, keeps the calls (3.4x fewer
 * instructions at 512 bits), and the SVE GEMV wins them only without
 * dotprod (A64FX). */
#if defined(QMM_HAVE_SVE)
QMM_KERNEL(arm64_mmv_i8i32_4vlx1_sve_sdot, NO_RUN_ROWS, NO_HOOKS, NO_RUN_OVERLAP, NO_U8A,
           .isa = "sve", .mr = 16, .nr = 1, .rank = 52,
           .a_format = &qmm_pack_formats[QMM_PACK_I8_K4],
           .b_format = &qmm_pack_formats[QMM_PACK_I8_K4],
           .features = QMM_CPU_SVE, .depth_l1s = 1,
           .vector = QMM_CPU_SVE, .scales = QMM_SCALES_M)
#endif
#endif
