// Header templates in src/cpu are compiled by files with different ISA flags (*_avx2.cpp,
// *_avx512.cpp, the rest portable). Each such header opens `inline namespace GEMMKIT_CPU_ISA`,
// named after the flags of the including file, so the instantiations of different files never
// merge at link time (no ODR clash, no AVX-512 code reached on an AVX2-only CPU).
#pragma once

#if defined(__AVX512F__)
#define GEMMKIT_CPU_ISA isa_avx512
#elif defined(__AVX2__)
#define GEMMKIT_CPU_ISA isa_avx2
#else
#define GEMMKIT_CPU_ISA isa_portable
#endif
