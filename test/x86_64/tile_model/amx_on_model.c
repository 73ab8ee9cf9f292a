/*
 * The AMX-INT8 kernel's own source, built a second time with the tile model
 * in place of the instructions, under names of its own beside the library's.
 */
#include "amx_on_model.h"

#define QMM_TILE_MODEL
#include "tile_model.h"

#define qmm_x86_64_mmm_i8i32_32x32_amx_run model_amx_run
#define qmm_x86_64_mmm_i8i32_32x32_amx_run_rows model_amx_run_rows
#define qmm_x86_64_mmm_i8i32_32x32_amx_run_overlap model_amx_run_overlap
#define qmm_x86_64_mmm_i8i32_32x32_amx_u8a_run model_amx_u8a_run
#define qmm_x86_64_mmm_i8i32_32x32_amx_u8a_run_rows model_amx_u8a_run_rows
#define qmm_x86_64_mmm_i8i32_32x32_amx_u8a_run_overlap model_amx_u8a_run_overlap
#define qmm_x86_64_mmm_i8i32_32x32_amx_begin model_amx_begin
#define qmm_x86_64_mmm_i8i32_32x32_amx_end model_amx_end

#include "kernels/x86_64/mmm_i8i32_32x32_amx.c"
