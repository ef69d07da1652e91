// Checks a problem before anything is allocated for it: the front door's rules (core::validate_desc: the same Status, argument name and netlib position
// as gemm() gives), then sizes whose bytes would overflow 64-bit arithmetic, then whether the
// buffers fit in the memory that is free. Used by every `gemmkit` command before it builds
// a buffer.
#pragma once
#include <cstdint>
#include <string>

#include "bench/testbed.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::bench {

// validate_desc on the descriptor with defaulted lds, then: every operand's footprint over
// all batches, in bytes, below 2^62 (so that byte counts never wrap); an overflow names the
// operand's leading dimension (one matrix too large) or its batch stride (the batches).
Status validate_problem(const GemmDesc& d);

// Bytes of A, B, C and D over all batches as the testbed lays them out (guard bands
// included). Expects validate_problem to have passed.
std::int64_t problem_bytes(const GemmDesc& d);

// What a command will hold at once for one problem.
struct MemoryNeed {
  std::int64_t host = 0;
  std::int64_t device = 0;
  std::string what;  // how the figure was made, for the message
};
// `gemmkit run`: the operands on the host, and a copy on the device for CUDA.
MemoryNeed run_memory(const GemmDesc& d, bool on_device);
// `gemmkit verify` / one bench row's check: the case, the testbed's copies of it, and the
// reference (host: widened operands and the result; GPU: the result on the device).
MemoryNeed verify_memory(const GemmDesc& d, bool on_device, bool full_check);

// One `gemmkit bench` row: verify_memory for the check `policy` picks, plus the first
// rotation set (host memory for the CPU, device memory for CUDA).
MemoryNeed bench_memory(const GemmDesc& d, bool on_device, const CheckPolicy& policy);

// Free memory: MemAvailable of /proc/meminfo (-1 when unreadable); the current CUDA device's
// free memory (-1 without a usable device).
std::int64_t host_available_bytes();
std::int64_t device_available_bytes();

// NotSupported with the bytes needed and available when `need` exceeds either; Success when
// it fits (or when the free memory cannot be read).
Status check_memory(const MemoryNeed& need);

// Why the planner finds no kernel for a valid problem: its Status, then the reasons the
// first few kernels it tried gave (their can_implement), e.g. "NotSupported: no cuda kernel
// implements this problem; skipped cuda.ladder.rung4: NotSupported: the CUDA ladder takes A
// and B both bf16 or both fp16". Empty when it finds one. Every row without a kernel says it.
std::string why_no_kernel(const GemmDesc& d, const Options& opt);

}  // namespace gemmkit::bench
