// sm90_gemm_tma_ws with a 64 x 64 x 64 CTA tile in clusters of 2 along M (B multicast), a
// 12-stage ring: split-K on few output tiles, bf16 and fp16, every operand arrangement.
#include "cuda/sm90/launch_tma_ws.cuh"

namespace gemmkit::sm90 {
GEMMKIT_SM90_TMA_WS_LAUNCH(64, 64, 2)
}  // namespace gemmkit::sm90
