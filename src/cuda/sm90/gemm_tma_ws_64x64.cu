// sm90_gemm_tma_ws with a 64 x 64 x 64 CTA tile (the two consumers take alternate stages)
// and a 12-stage ring: split-K on few output tiles (128 CTAs over the 16 tiles of a 256 x 256
// output in 8 long pieces), bf16 and fp16, every operand arrangement.
#include "cuda/sm90/launch_tma_ws.cuh"

namespace gemmkit::sm90 {
GEMMKIT_SM90_TMA_WS_LAUNCH(64, 64, 1)
}  // namespace gemmkit::sm90
