/*
 * Every kernel compiled into qmm, one line each: QMM_KERNEL(symbol of its
 * descriptor), guarded by the architecture it is built for. Included by the
 * registry with QMM_KERNEL defined. The order is what `qmm-bench --list`
 * shows; the selector never depends on it.
 */
QMM_KERNEL(qmm_generic_mmm_i8i32_3x4)
QMM_KERNEL(qmm_generic_mmv_i8i32_4x1)
