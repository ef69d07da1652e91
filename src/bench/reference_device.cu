#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "bench/reference_device.hpp"
#include "core/element.hpp"
#include "core/validate.hpp"
#include "core/view.hpp"

namespace gemmkit::bench {

namespace {

// One operand on the device: op(X)(r, c) of batch l at p + l * batch_stride + r * row + c * col.
struct DeviceOperand {
  const void* p = nullptr;
  DType dtype = DType::F32;
  const float* table = nullptr;  // every code's value, for f16, bf16, e4m3 and e5m2
  std::int64_t row = 0, col = 0, batch_stride = 0;
};

struct Params {
  DeviceOperand a, b, c;
  std::int64_t m, n, k, batch;
  double alpha, beta;
  bool use_ab, use_c;
  double* value;
  double* gauge;  // null: not asked for
};

__device__ double load(const DeviceOperand& o, std::int64_t idx) {
  switch (o.dtype) {
    case DType::F64:
      return static_cast<const double*>(o.p)[idx];
    case DType::F32:
      return static_cast<const float*>(o.p)[idx];
    case DType::F16:
    case DType::BF16:
      return o.table[static_cast<const std::uint16_t*>(o.p)[idx]];
    case DType::E4M3:
    case DType::E5M2:
      return o.table[static_cast<const std::uint8_t*>(o.p)[idx]];
    case DType::I8:
      return static_cast<const std::int8_t*>(o.p)[idx];
    case DType::I32:
      return static_cast<const std::int32_t*>(o.p)[idx];
    case DType::I4: {
      const std::uint8_t byte = static_cast<const std::uint8_t*>(o.p)[idx / 2];
      const int nib = idx % 2 == 0 ? (byte & 0xF) : (byte >> 4);
      return (nib ^ 8) - 8;  // sign-extended, as int4_get
    }
    default:
      return __longlong_as_double(0x7FF8000000000000ll);  // NaN: not an operand type
  }
}

// Element e = (l * n + j) * m + i of the result, as ReferenceMatrix::index.
__global__ void reference_kernel(Params p) {
  const std::int64_t total = p.m * p.n * p.batch;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += step) {
    const std::int64_t i = e % p.m, j = (e / p.m) % p.n, l = e / (p.m * p.n);
    double acc = 0.0, sum = 0.0;
    if (p.use_ab) {
      const std::int64_t a0 = l * p.a.batch_stride + i * p.a.row;
      const std::int64_t b0 = l * p.b.batch_stride + j * p.b.col;
      for (std::int64_t q = 0; q < p.k; ++q) {
        const double xy = __dmul_rn(load(p.a, a0 + q * p.a.col), load(p.b, b0 + q * p.b.row));
        acc = __dadd_rn(acc, xy);
        sum = __dadd_rn(sum, fabs(xy));
      }
    }
    double out = p.use_ab ? __dmul_rn(p.alpha, acc) : 0.0;
    double gauge = __dmul_rn(sum, fabs(p.alpha));
    if (p.use_c) {
      const double bc =
          __dmul_rn(p.beta, load(p.c, l * p.c.batch_stride + i * p.c.row + j * p.c.col));
      out = p.use_ab ? __dadd_rn(out, bc) : bc;  // keeps -0 when alpha == 0
      gauge = __dadd_rn(gauge, fabs(bc));
    }
    p.value[e] = out;
    if (p.gauge) p.gauge[e] = gauge;
  }
}

bool ok(cudaError_t e, const char* what, std::string* err) {
  if (e == cudaSuccess) return true;
  if (err) *err = std::string(what) + ": " + cudaGetErrorString(e);
  cudaGetLastError();
  return false;
}

// Device memory freed on scope exit.
struct DeviceBuffer {
  void* p = nullptr;
  ~DeviceBuffer() {
    if (p) cudaFree(p);
  }
  bool alloc(std::size_t bytes, std::string* err) {
    return ok(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cudaMalloc", err);
  }
};

// The table of every code of a 8- or 16-bit float type (empty for the other types).
std::vector<float> code_table(DType t) {
  const int bits = dtype_bits(t);
  if (!core::is_float_type(t) || bits > 16) return {};
  std::vector<float> v(std::size_t{1} << bits);
  for (std::size_t code = 0; code < v.size(); ++code) {
    const std::uint16_t c16 = static_cast<std::uint16_t>(code);
    const std::uint8_t c8 = static_cast<std::uint8_t>(code);
    v[code] = static_cast<float>(core::load_element(
        t, bits == 16 ? static_cast<const void*>(&c16) : static_cast<const void*>(&c8), 0));
  }
  return v;
}

bool make_operand(DType t, const void* p, core::Strides s, std::int64_t batch_stride,
                  DeviceBuffer* table, DeviceOperand* out, std::string* err) {
  *out = DeviceOperand{p, t, nullptr, s.row, s.col, batch_stride};
  const std::vector<float> codes = code_table(t);
  if (codes.empty()) return true;
  if (!table->alloc(codes.size() * sizeof(float), err) ||
      !ok(cudaMemcpy(table->p, codes.data(), codes.size() * sizeof(float), cudaMemcpyHostToDevice),
          "cudaMemcpy", err))
    return false;
  out->table = static_cast<const float*>(table->p);
  return true;
}

}  // namespace

bool reference_on_device(const GemmDesc& d, const GemmArgs& args, bool want_gauge,
                         ReferenceMatrix* out, std::string* err) {
  ReferenceMatrix r;
  r.m = d.m, r.n = d.n, r.batch = d.batch;
  if (core::is_empty(d)) {
    *out = r;
    return true;
  }
  const core::ProblemView v = core::make_view(d);
  const std::int64_t total = d.m * d.n * d.batch;
  const std::size_t bytes = static_cast<std::size_t>(total) * sizeof(double);
  Params p{};
  p.m = d.m, p.n = d.n, p.k = d.k, p.batch = d.batch;
  p.alpha = args.alpha, p.beta = args.beta;
  p.use_ab = args.alpha != 0.0 && d.k > 0;
  p.use_c = args.beta != 0.0;
  DeviceBuffer tables[3], value, gauge;
  if (p.use_ab && (!make_operand(d.a.dtype, args.a, v.a, d.a.batch_stride, &tables[0], &p.a, err) ||
                   !make_operand(d.b.dtype, args.b, v.b, d.b.batch_stride, &tables[1], &p.b, err)))
    return false;
  if (p.use_c && !make_operand(d.c.dtype, args.c, v.c, d.c.batch_stride, &tables[2], &p.c, err))
    return false;
  if (!value.alloc(bytes, err) || (want_gauge && !gauge.alloc(bytes, err))) return false;
  p.value = static_cast<double*>(value.p);
  p.gauge = want_gauge ? static_cast<double*>(gauge.p) : nullptr;
  constexpr int kThreads = 256;
  const std::int64_t blocks = std::min<std::int64_t>((total + kThreads - 1) / kThreads, 1 << 20);
  reference_kernel<<<static_cast<unsigned>(blocks), kThreads>>>(p);
  if (!ok(cudaGetLastError(), "reference_kernel launch", err) ||
      !ok(cudaDeviceSynchronize(), "reference_kernel", err))
    return false;
  r.value.resize(static_cast<std::size_t>(total));
  if (!ok(cudaMemcpy(r.value.data(), value.p, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy", err))
    return false;
  if (want_gauge) {
    r.gauge.resize(static_cast<std::size_t>(total));
    if (!ok(cudaMemcpy(r.gauge.data(), gauge.p, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy", err))
      return false;
  }
  *out = std::move(r);
  return true;
}

}  // namespace gemmkit::bench
