// sm90_gemm_tma_ws with a 64 x 128 x 64 CTA tile (the two consumers take alternate stages,
// wgmma n = 128) and an 8-stage ring: split-K on few output tiles where the 64 x 64 tile's
// n = 64 multiplications and its copies contend (128 CTAs over the 8 tiles of a 256 x 256
// output in 16 pieces), bf16 and fp16, every operand arrangement.
#include "cuda/sm90/launch_tma_ws.cuh"

namespace gemmkit::sm90 {
GEMMKIT_SM90_TMA_WS_LAUNCH(64, 128, 1)
}  // namespace gemmkit::sm90
