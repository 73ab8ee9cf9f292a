/* The AMX-INT8 kernel built against the tile model (amx_on_model.c). */
#ifndef QMM_AMX_ON_MODEL_H
#define QMM_AMX_ON_MODEL_H

#include "kernels/kernel.h"

qmm_ukernel_fn model_amx_run;
qmm_ukernel_rows_fn model_amx_run_rows;
qmm_ukernel_overlap_fn model_amx_run_overlap;
qmm_ukernel_fn model_amx_u8a_run;
qmm_ukernel_rows_fn model_amx_u8a_run_rows;
qmm_ukernel_overlap_fn model_amx_u8a_run_overlap;
qmm_kernel_hook_fn model_amx_begin, model_amx_end;

#endif
