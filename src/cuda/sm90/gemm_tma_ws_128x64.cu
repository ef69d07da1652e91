// sm90_gemm_tma_ws with a 128 x 64 x 64 CTA tile and an 8-stage ring: the decode tile (the
// large side of the problem as M, up to 64 tokens as N), bf16 and fp16, every arrangement.
#include "cuda/sm90/launch_tma_ws.cuh"

namespace gemmkit::sm90 {
GEMMKIT_SM90_TMA_WS_LAUNCH(128, 64, 1)
}  // namespace gemmkit::sm90
