// Tensor Memory Accelerator (TMA) helpers: host-side tensor maps of 16-bit operands, encoded
// through the driver entry point (libcuda is never linked: the runtime hands out the
// function), and the device side's mbarrier wait. The copies themselves are CCCL's
// cuda::ptx::cp_async_bulk_tensor.
#pragma once
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cuda/ptx>

namespace gemmkit::tma {

// cuTensorMapEncodeTiled from the driver, or null where the driver has none.
inline PFN_cuTensorMapEncodeTiled_v12000 encode_tiled_fn() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      return static_cast<PFN_cuTensorMapEncodeTiled_v12000>(nullptr);
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// A (contiguous extent, other extent[, batch]) matrix of 16-bit elements read in boxes of
// (box_contig, box_other) with the 128-byte swizzle (box_contig * 2 must be 128) and
// zero fill outside the matrix. Strides in elements. False when TMA cannot address it
// (base not 16-byte aligned, strides not multiples of 8 elements, a zero batch stride).
inline bool encode_16bit(CUtensorMap* map, const void* base, std::int64_t contig,
                         std::int64_t other, std::int64_t stride_other, std::int64_t batch,
                         std::int64_t stride_batch, std::uint32_t box_contig,
                         std::uint32_t box_other) {
  const auto fn = encode_tiled_fn();
  if (fn == nullptr || reinterpret_cast<std::uintptr_t>(base) % 16 != 0 || stride_other <= 0 ||
      stride_other % 8 != 0 || (batch > 1 && (stride_batch <= 0 || stride_batch % 8 != 0)))
    return false;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(contig), static_cast<cuuint64_t>(other),
                              static_cast<cuuint64_t>(batch)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(stride_other) * 2,
                                 static_cast<cuuint64_t>(stride_batch) * 2};
  const cuuint32_t box[3] = {box_contig, box_other, 1}, elem_strides[3] = {1, 1, 1};
  return fn(map, CU_TENSOR_MAP_DATA_TYPE_UINT16, batch > 1 ? 3 : 2, const_cast<void*>(base), dims,
            strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// A row-major (rows, k) matrix of 16-bit elements (row stride ld[, batches batch_stride apart])
// as (64 K, rows, K / 64 chunks[, batch]) with the 128-byte swizzle: one copy brings `chunks`
// boxes of (box_rows, 64), laid out one after the other. K must be a multiple of 64 (the inner
// extent never stops at K). False when TMA cannot address it.
inline bool encode_16bit_chunked(CUtensorMap* map, const void* base, std::int64_t k,
                                 std::int64_t rows, std::int64_t ld, std::int64_t batch,
                                 std::int64_t batch_stride, int box_rows, int chunks) {
  constexpr cuuint64_t kBoxK = 64;
  const auto fn = encode_tiled_fn();
  if (fn == nullptr || k % kBoxK != 0 || ld % 8 != 0 ||
      reinterpret_cast<std::uintptr_t>(base) % 16 != 0 || (batch > 1 && batch_stride % 8 != 0))
    return false;
  const cuuint64_t dims[4] = {kBoxK, static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(k) / kBoxK, static_cast<cuuint64_t>(batch)};
  const cuuint64_t strides[3] = {static_cast<cuuint64_t>(ld) * 2, kBoxK * 2,
                                 static_cast<cuuint64_t>(batch_stride) * 2};
  const cuuint32_t box[4] = {static_cast<cuuint32_t>(kBoxK), static_cast<cuuint32_t>(box_rows),
                             static_cast<cuuint32_t>(chunks), 1};
  const cuuint32_t elem_strides[4] = {1, 1, 1, 1};
  return fn(map, CU_TENSOR_MAP_DATA_TYPE_UINT16, batch > 1 ? 4 : 3, const_cast<void*>(base), dims,
            strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

#ifdef __CUDACC__
// Spins until the phase of `bar` with parity `parity` has completed.
__device__ __forceinline__ void wait_parity(std::uint64_t* bar, std::uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

// Box (c0, c1) of batch entry `l` of `map` into shared `dst`, completing on `bar`.
__device__ __forceinline__ void load_box(void* dst, const CUtensorMap& map, int c0, int c1, int l,
                                         bool batched, std::uint64_t* bar) {
  if (batched) {
    const std::int32_t c[3] = {c0, c1, l};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, &map, c,
                                    bar);
  } else {
    const std::int32_t c[2] = {c0, c1};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, &map, c,
                                    bar);
  }
}

// load_box, written to the same shared-memory offset of every CTA of the cluster in `mask`,
// completing on the mbarrier at `bar`'s offset in each of them.
__device__ __forceinline__ void load_box_multicast(void* dst, const CUtensorMap& map, int c0,
                                                   int c1, int l, bool batched, std::uint64_t* bar,
                                                   std::uint16_t mask) {
  if (batched) {
    const std::int32_t c[3] = {c0, c1, l};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, &map, c,
                                    bar, mask);
  } else {
    const std::int32_t c[2] = {c0, c1};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, &map, c,
                                    bar, mask);
  }
}
#endif

}  // namespace gemmkit::tma
