#include "support/device_run.hpp"

#include <limits>
#include <string>

#include "bench/device_mem.hpp"
#include "core/element.hpp"

namespace gemmkit::test {

Status run_device(bench::HostCase& hc, std::vector<std::uint8_t>& d_out, const Options& opt,
                  const std::int64_t (&offset_bytes)[4]) {
  std::vector<std::uint8_t>* host[4] = {&hc.a, &hc.b, &hc.c, &d_out};
  void* dev[4] = {};
  void* at[4] = {};
  std::string err;
  bool ok = true;
  for (int i = 0; i < 4 && ok; ++i) {
    ok = bench::device_alloc(&dev[i], host[i]->size() + 32, &err);
    at[i] = static_cast<std::uint8_t*>(dev[i]) + offset_bytes[i];
    ok = ok && bench::copy_to_device(at[i], host[i]->data(), host[i]->size(), &err);
  }
  Status st = ok ? gemm(hc.desc, GemmArgs{at[0], at[1], at[2], at[3], hc.alpha, hc.beta}, opt)
                 : Status{StatusCode::ExecutionFailed, Arg::None, err};
  ok = ok && bench::device_synchronize(&err) &&
       bench::copy_to_host(d_out.data(), at[3], d_out.size(), &err);
  for (void* p : dev) bench::device_free(p);
  if (st.ok() && !ok) st = Status{StatusCode::ExecutionFailed, Arg::None, err};
  return st;
}

void fill_with_nan(std::vector<std::uint8_t>& buf, DType t) {
  const std::int64_t elems = static_cast<std::int64_t>((buf.size() - bench::HostCase::kGuardBytes) *
                                                       8 / static_cast<std::size_t>(dtype_bits(t)));
  for (std::int64_t i = 0; i < elems; ++i)
    core::store_element(t, buf.data(), i, std::numeric_limits<double>::quiet_NaN());
}

}  // namespace gemmkit::test
