/*
 * Bulk packers: ISA-specific code for the packings that dominate a product's
 * packing time (a kernel's A and B from row-major sources), used by
 * qmm_pack_panels where the CPU allows. Each writes the same bytes as the
 * format's portable packer; it only covers the full panels and a multiple of
 * its depth step, and qmm_pack_panels finishes the rest portably.
 *
 * Adding one: a file under pack/<isa>/ and a line in the table of bulk.c.
 */
#ifndef QMM_PACK_BULK_H
#define QMM_PACK_BULK_H

#include "pack.h"

/* Pack `panels` full panels of r lines each, depths [0, depths), into dst,
 * panel j at dst + j * panel_bytes. The source's element (line i, depth p) is
 * src[i + p*stride] for a packer of adjacent lines, src[i*stride + p] for one
 * of adjacent depths. depths is a non-zero multiple of the packer's step; r
 * is the packer's width, or a multiple of it for a packer whose table line
 * in bulk.c says so (the vector-length-agnostic kernels' panels). */
typedef void qmm_pack_bulk_fn(const int8_t *src, ptrdiff_t stride, unsigned r, size_t panels,
                              size_t depths, unsigned char *dst, size_t panel_bytes);

/* AVX2 packers of i16_k2: 16 adjacent lines (B of the 6x16 kernel, row-major)
 * and 6 lines of adjacent depths (its A, row-major). */
qmm_pack_bulk_fn qmm_pack_i16_k2_lines16_avx2;
qmm_pack_bulk_fn qmm_pack_i16_k2_rows6_avx2;

/* AVX2 packer of i8_k4(_sums): 32 adjacent lines (B of the 12x32 AVX-512
 * VNNI kernel, row-major; qmm_pack_panels adds the line sums). */
qmm_pack_bulk_fn qmm_pack_i8_k4_lines32_avx2;

/* NEON packers of i8_k4 and i8_k8: 8 adjacent lines (B of the SDOT and
 * SMMLA 8x8 kernels, row-major), or any multiple of 8 (B of the SVE and SME
 * kernels), 8 lines at a time. */
qmm_pack_bulk_fn qmm_pack_i8_k4_lines8_neon;
qmm_pack_bulk_fn qmm_pack_i8_k8_lines8_neon;

/* NEON packers of i8_k4 and i8_k8 from rows of adjacent depths (A,
 * row-major): any multiple of 4 rows (k4) or of 2 (k8), 16 depths a step. */
qmm_pack_bulk_fn qmm_pack_i8_k4_rows4_neon;
qmm_pack_bulk_fn qmm_pack_i8_k8_rows2_neon;

/* The line sums of one packed panel at padded depth kp, from its elements,
 * into sums (after the elements for a format with line sums, pack.h). */
typedef void qmm_pack_sums_fn(const unsigned char *panel, size_t kp, int32_t *sums);

/* Line sums of 32-line i8_k4 and i8_k4_sums panels (the B of the VNNI and
 * AMX kernels), with AVX-512 VNNI and with AVX2. */
qmm_pack_sums_fn qmm_pack_i8_k4_sums32_avx512vnni;
qmm_pack_sums_fn qmm_pack_i8_k4_sums32_avx2;

/* The ISA routine for the line sums of f's panels of r lines where the CPU
 * has one, or NULL. */
qmm_pack_sums_fn *qmm_pack_bulk_sums(const qmm_pack_format *f, unsigned r);

/* Packs with a bulk packer what it covers of qmm_pack_panels' arguments (all
 * the full panels, every depth), and returns the number of lines done: a
 * multiple of r, 0 when no packer applies. */
size_t qmm_pack_bulk(const qmm_pack_format *f, unsigned r, size_t kp, const int8_t *src,
                     ptrdiff_t line_stride, ptrdiff_t depth_stride, size_t lines, size_t k,
                     unsigned char *dst, size_t panel_bytes);

#endif
