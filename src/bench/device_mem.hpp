// Minimal device-memory helpers for the harness; without CUDA every call fails cleanly.
#pragma once
#include <cstddef>
#include <string>

namespace gemmkit::bench {

bool device_alloc(void** p, std::size_t bytes, std::string* err);
void device_free(void* p);
bool copy_to_device(void* dst, const void* src, std::size_t bytes, std::string* err);
bool copy_to_host(void* dst, const void* src, std::size_t bytes, std::string* err);
bool copy_on_device(void* dst, const void* src, std::size_t bytes, std::string* err);
bool device_synchronize(std::string* err);
// Free and total bytes of the current device (false without one).
bool device_mem_info(std::size_t* free_bytes, std::size_t* total_bytes);

}  // namespace gemmkit::bench
