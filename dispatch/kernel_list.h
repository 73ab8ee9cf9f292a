/*
 * Every kernel compiled into qmm, one line each, which is its descriptor:
 *
 *   QMM_KERNEL(name, isa, mr, nr, rank, A format, B format, CPU features)
 *
 * name     the kernel's name; its code (one file under kernels/) defines
 *          qmm_<name>_run, a qmm_ukernel_fn (kernels/kernel.h)
 * rank     expected speed among kernels of the same role, higher is faster
 * formats  entries of the packing format table (pack/pack.h)
 * features what is_supported_here() requires (dispatch/cpu.h), 0 for none
 *
 * Lines are guarded by the architecture their code is built for. The order
 * is what `qmm-bench --list` shows; the selector never depends on it.
 */
QMM_KERNEL(generic_mmm_i8i32_3x4, "generic", 3, 4, 10, QMM_PACK_I16_KIN16, QMM_PACK_I16_KIN16, 0)
QMM_KERNEL(generic_mmv_i8i32_4x1, "generic", 4, 1, 10, QMM_PACK_I8_KIN16, QMM_PACK_I16_KIN16, 0)
