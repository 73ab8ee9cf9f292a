/*
 * Every kernel compiled into qmm, one line each, which is its descriptor:
 *
 *   QMM_KERNEL(name, isa, mr, nr, rank, A format, B format, CPU features, rows, hooks,
 *              overlap, uint8 A, depth, tile)
 *
 * name     the kernel's name; its code (one file under kernels/) defines
 *          qmm_<name>_run, a qmm_ukernel_fn (kernels/kernel.h)
 * rank     expected speed on full tiles, relative to the portable kernels' 10:
 *          measured (time on x86, executed instructions under QEMU on arm64)
 *          against the portable kernel of the same role, on whole calls for
 *          matrix kernels and on plan runs (A packed once) for GEMV kernels,
 *          whose A is a layer's weights
 * formats  entries of the packing format table (pack/pack.h)
 * features what is_supported_here() requires (platform/cpu.h), 0 for none:
 *          the kernel's own tier alone. The tiers below it are the feature
 *          table's to require (platform/cpu.c: a tier is in effect only when
 *          the one below it is), so that the rule is stated once: naming
 *          them here as well would change no choice, only add a second
 *          statement of the tiers for each new kernel to keep in step
 * rows     ROWS when the code also defines qmm_<name>_run_rows, the optional
 *          partial-rows microkernel (a qmm_ukernel_rows_fn), FULL when not
 * hooks    HOOKS when the code also defines qmm_<name>_begin and qmm_<name>_end,
 *          the job hooks around a thread's tiles (kernels/kernel.h), NONE when not
 * overlap  OVERLAP when the code also defines qmm_<name>_run_overlap, which runs
 *          other work (the stage of the tile before) while its tile's
 *          multiply-adds are in flight (kernels/kernel.h), ALONE when not
 * uint8 A  U8A when the code also defines qmm_<name>_u8a_run (and the
 *          _u8a_ forms of run_rows and run_overlap where it has those): its
 *          twin reading A's bytes as uint8, which a product with a uint8 A
 *          runs instead of flipping A to int8 first (kernels/kernel.h), I8A
 *          when not
 * depth    how many L1 data caches' worth of depths a packed B panel may
 *          span (compute/blocking.c): 2 where measured faster than 1
 * tile     FIXED for a tile of mr x nr; for a vector-length-agnostic kernel,
 *          which vector length scales which dimensions (kernels/kernel.h):
 *          SVE_N (nr grows with SVE's), SVE_M (mr does), SME_MN (both grow
 *          with the streaming vector length). mr, nr and rank are then
 *          those at 128-bit vectors, and the kernel's name says the tile in
 *          vectors ("8x2vl": 8 rows by two vectors of int32 lanes)
 *
 * Lines are guarded by the architecture their code is built for. The order
 * is what `qmm-bench --list` shows; the selector never depends on it.
 */
QMM_KERNEL(generic_mmm_i8i32_3x4, "generic", 3, 4, 10, QMM_PACK_I16_KIN16, QMM_PACK_I16_KIN16, 0, FULL, NONE, ALONE, I8A, 1, FIXED)
QMM_KERNEL(generic_mmv_i8i32_4x1, "generic", 4, 1, 10, QMM_PACK_I8_KIN16, QMM_PACK_I16_KIN16, 0, FULL, NONE, ALONE, I8A, 1, FIXED)
#if defined(__x86_64__)
/* x86_64: kernels/x86_64/; the *_avx2.c files alone are compiled with -mavx2
 * (cmake/kernels_x86_64.cmake), the library itself targets baseline x86-64. */
QMM_KERNEL(x86_64_mmm_i8i32_6x16_avx2, "avx2", 6, 16, 20, QMM_PACK_I16_K2, QMM_PACK_I16_K2, QMM_CPU_AVX2, ROWS, NONE, ALONE, I8A, 1, FIXED)
QMM_KERNEL(x86_64_mmv_i8i32_8x1_avx2, "avx2", 8, 1, 12, QMM_PACK_I8_KIN16, QMM_PACK_I16_KIN16, QMM_CPU_AVX2, FULL, NONE, ALONE, I8A, 1, FIXED)
QMM_KERNEL(x86_64_mmm_i8i32_12x32_avx512vnni, "avx512vnni", 12, 32, 85, QMM_PACK_I8_KIN16, QMM_PACK_I8_K4_SUMS, QMM_CPU_AVX512VNNI, ROWS, NONE, ALONE, U8A, 2, FIXED)
QMM_KERNEL(x86_64_mmv_i8i32_16x1_avx512vnni, "avx512vnni", 16, 1, 33, QMM_PACK_I8_KIN64, QMM_PACK_I8_KIN64, QMM_CPU_AVX512VNNI, FULL, NONE, ALONE, I8A, 1, FIXED)
/* AMX-INT8 (*_amx.c), the tier above VNNI. Rank measured on a 2-vCPU AMX
 * Xeon, one thread, whole calls: 16-23x the portable 3x4 kernel at 1024^3,
 * 256^3 and the MiniLM shapes (1.9-3.5x the VNNI kernel). */
QMM_KERNEL(x86_64_mmm_i8i32_32x32_amx, "amx", 32, 32, 200, QMM_PACK_I8_KIN64, QMM_PACK_I8_K4, QMM_CPU_AMX, ROWS, HOOKS, OVERLAP, U8A, 2, FIXED)
#endif
#if defined(__aarch64__)
/* arm64: kernels/arm64/. Kernels on an extension are built only when the
 * assembler knows it (cmake/kernels_arm64.cmake defines QMM_HAVE_DOTPROD,
 * QMM_HAVE_I8MM, QMM_HAVE_SVE, QMM_HAVE_SVE_I8MM and QMM_HAVE_SME). The tiers
 * go NEON < dotprod < i8mm < sme and NEON < sve < svei8mm (platform/cpu.c).
 * At 128-bit vectors an SVE kernel ranks just below the NEON kernel of its
 * instruction, which then keeps the shapes it has today; each doubling of
 * the vector length doubles its rank (SVE) or quadruples it (SME's tile). */
QMM_KERNEL(arm64_mmm_i8i32_8x8_smlal, "neon", 8, 8, 17, QMM_PACK_I8_K1, QMM_PACK_I8_K1, QMM_CPU_NEON, FULL, NONE, ALONE, I8A, 1, FIXED)
#if defined(QMM_HAVE_DOTPROD)
QMM_KERNEL(arm64_mmm_i8i32_8x8_sdot, "neon+dotprod", 8, 8, 70, QMM_PACK_I8_K4, QMM_PACK_I8_K4, QMM_CPU_DOTPROD, FULL, NONE, ALONE, I8A, 1, FIXED)
#endif
#if defined(QMM_HAVE_I8MM)
QMM_KERNEL(arm64_mmm_i8i32_8x8_smmla, "neon+i8mm", 8, 8, 120, QMM_PACK_I8_K8, QMM_PACK_I8_K8, QMM_CPU_I8MM, ROWS, NONE, ALONE, I8A, 1, FIXED)
#endif
#if defined(QMM_HAVE_SVE)
QMM_KERNEL(arm64_mmm_i8i32_8x2vl_sve_sdot, "sve", 8, 8, 65, QMM_PACK_I8_K4, QMM_PACK_I8_K4, QMM_CPU_SVE, FULL, NONE, ALONE, I8A, 1, SVE_N)
#endif
#if defined(QMM_HAVE_SVE_I8MM)
QMM_KERNEL(arm64_mmm_i8i32_8x2vl_sve_smmla, "sve+i8mm", 8, 8, 110, QMM_PACK_I8_K8, QMM_PACK_I8_K8, QMM_CPU_SVE_I8MM, FULL, NONE, ALONE, I8A, 1, SVE_N)
#endif
#if defined(QMM_HAVE_SME)
QMM_KERNEL(arm64_mmm_i8i32_2vlx2vl_sme_smopa, "sme", 8, 8, 150, QMM_PACK_I8_K4, QMM_PACK_I8_K4, QMM_CPU_SME, FULL, NONE, ALONE, I8A, 1, SME_MN)
#endif
QMM_KERNEL(arm64_mmv_i8i32_64x1, "neon", 64, 1, 14, QMM_PACK_I8_K1, QMM_PACK_I8_K1, QMM_CPU_NEON, FULL, NONE, ALONE, I8A, 1, FIXED)
#if defined(QMM_HAVE_DOTPROD)
QMM_KERNEL(arm64_mmv_i8i32_8x1_sdot, "neon+dotprod", 8, 1, 60, QMM_PACK_I8_KIN16, QMM_PACK_I8_KIN16, QMM_CPU_DOTPROD, FULL, NONE, ALONE, I8A, 1, FIXED)
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
QMM_KERNEL(arm64_mmv_i8i32_4vlx1_sve_sdot, "sve", 16, 1, 52, QMM_PACK_I8_K4, QMM_PACK_I8_K4, QMM_CPU_SVE, FULL, NONE, ALONE, I8A, 1, SVE_M)
#endif
#endif
