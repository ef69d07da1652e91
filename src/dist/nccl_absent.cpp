// gemmkit_dist built without NCCL: the partitioning and the checks exist, every operation
// answers NotSupported "built without NCCL" (dist.hpp).
#include "core/status.hpp"
#include "gemmkit/dist.hpp"

namespace gemmkit::dist {
namespace {

Status no_nccl() {
  return GEMMKIT_UNSUPPORTED(
      "gemmkit_dist was built without NCCL (CUDA and nccl.h / libnccl "
      "are needed at configure time)");
}

}  // namespace

struct Communicator::State {};

bool built_with_nccl() noexcept { return false; }

Communicator::Communicator() noexcept = default;
Communicator::~Communicator() = default;
Communicator::Communicator(Communicator&&) noexcept = default;
Communicator& Communicator::operator=(Communicator&&) noexcept = default;
int Communicator::rank() const noexcept { return 0; }
int Communicator::size() const noexcept { return 0; }
int Communicator::device() const noexcept { return -1; }
ncclComm_t Communicator::nccl() const noexcept { return nullptr; }

Status Communicator::create(ncclComm_t, Communicator*) { return no_nccl(); }
Status column_parallel(const Communicator&, const GemmDesc&, const GemmArgs&, const TpOptions&,
                       const Options&) {
  return no_nccl();
}
Status row_parallel(const Communicator&, const GemmDesc&, const GemmArgs&, const TpOptions&,
                    const Options&) {
  return no_nccl();
}

}  // namespace gemmkit::dist
