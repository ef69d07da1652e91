// Portable production kernels: plain C++ tiles, no ISA flags. Always built, always usable,
// and the oracle the SIMD kernels are tested against.
#include "cpu/block_table.hpp"
#include "cpu/microkernel_portable.hpp"

namespace gemmkit::cpu {
inline namespace GEMMKIT_CPU_ISA {

constexpr Isa kIsa = Isa::Portable;
struct Sgemm : PortableKernel<float, 4, 16> {
  static constexpr Isa kIsa = Isa::Portable;
};
using SgemmSmallM = Sgemm;
struct Dgemm : PortableKernel<double, 4, 8> {
  static constexpr Isa kIsa = Isa::Portable;
};
using DgemmSmallM = Dgemm;
struct Igemm : PortableKernel<std::int32_t, 4, 16> {
  static constexpr Isa kIsa = Isa::Portable;
};
using IgemmVnni = Igemm;  // no VNNI kernel in this file
constexpr bool kHasIgemmVnni = false;

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu

#include "cpu/gemm_isa_entries.hpp"

const gemmkit::cpu::IsaKernels& gemmkit::cpu::portable_kernels() { return kIsaKernels; }
