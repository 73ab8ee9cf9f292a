// gemmlowp, for qmm-bench-peers: gemmlowp is header-only C++, so this is the
// one C++ file of the bench; library_gemmlowp.c calls it through the C
// functions below.
#include <cstdint>
#include <tuple>

#include "gemmlowp/public/gemmlowp.h"

#include "gemmlowp_peer.h"

namespace {
gemmlowp::GemmContext *context() {
    static gemmlowp::GemmContext *c = [] {
        auto *ctx = new gemmlowp::GemmContext;
        ctx->set_max_num_threads(1);
        return ctx;
    }();
    return c;
}

// The pipeline of peer_gemmlowp_u8_requant, with the bias vector's shape
// (Row: one per column of C; Col: one per row) a template argument.
template <gemmlowp::VectorShape Shape>
void requant(int m, int n, int k, const uint8_t *a, int a_offset, const uint8_t *b,
             int b_offset, const peer_gemmlowp_requant *q, uint8_t *c) {
    gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::RowMajor> lhs(a, m, k);
    gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::RowMajor> rhs(b, k, n);
    gemmlowp::MatrixMap<std::uint8_t, gemmlowp::MapOrder::RowMajor> result(c, m, n);
    using BiasVector = gemmlowp::VectorMap<const std::int32_t, Shape>;
    gemmlowp::OutputStageBiasAddition<BiasVector> bias;
    bias.bias_vector = BiasVector(q->bias, Shape == gemmlowp::VectorShape::Row ? n : m);
    gemmlowp::OutputStageScaleInt32ByFixedPointAndExponent scale;
    scale.result_fixedpoint_multiplier = q->multiplier;
    scale.result_exponent = q->exponent;
    scale.result_offset_after_shift = q->zero_point;
    gemmlowp::OutputStageClamp clamp;
    clamp.min = q->min;
    clamp.max = q->max;
    gemmlowp::GemmWithOutputPipeline<std::uint8_t, std::uint8_t,
                                     gemmlowp::DefaultL8R8BitDepthParams>(
        context(), lhs, rhs, &result, a_offset, b_offset,
        std::make_tuple(bias, scale, clamp, gemmlowp::OutputStageSaturatingCastToUint8()));
}
}  // namespace

// gemmlowp starts its worker threads (at most n - 1, the calling thread being
// the n-th) at the first product that it splits.
extern "C" void peer_gemmlowp_set_num_threads(int n) { context()->set_max_num_threads(n); }

// C = (A + a_offset)(B + b_offset), uint8 operands, exact int32 result, all
// row-major; no output stage beyond the int32 accumulators.
extern "C" void peer_gemmlowp_u8_i32(int m, int n, int k, const uint8_t *a, int a_offset,
                                     const uint8_t *b, int b_offset, int32_t *c) {
    gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::RowMajor> lhs(a, m, k);
    gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::RowMajor> rhs(b, k, n);
    gemmlowp::MatrixMap<std::int32_t, gemmlowp::MapOrder::RowMajor> result(c, m, n);
    gemmlowp::GemmWithOutputPipeline<std::uint8_t, std::int32_t,
                                     gemmlowp::DefaultL8R8BitDepthParams>(
        context(), lhs, rhs, &result, a_offset, b_offset, std::make_tuple());
}

extern "C" void peer_gemmlowp_u8_requant(int m, int n, int k, const uint8_t *a, int a_offset,
                                         const uint8_t *b, int b_offset,
                                         const peer_gemmlowp_requant *q, uint8_t *c) {
    if (q->bias_per_row)
        requant<gemmlowp::VectorShape::Col>(m, n, k, a, a_offset, b, b_offset, q, c);
    else
        requant<gemmlowp::VectorShape::Row>(m, n, k, a, a_offset, b, b_offset, q, c);
}
