// sm90_gemm_tma_ws with a 128 x 128 x 64 CTA tile in clusters of 2 along M (B multicast):
// bf16 and fp16, every operand arrangement.
#include "cuda/sm90/launch_tma_ws.cuh"

namespace gemmkit::sm90 {
GEMMKIT_SM90_TMA_WS_LAUNCH(128, 128, 2)
}  // namespace gemmkit::sm90
