// Building Status values inside the library: every error carries file:line of its check.
#pragma once
#include <string>

#include "gemmkit/types.hpp"

namespace gemmkit::core {

inline Status make_status(StatusCode code, Arg arg, std::string msg, const char* file,
                          int line) {
  std::string where(file);
  auto slash = where.find_last_of('/');
  if (slash != std::string::npos) where = where.substr(slash + 1);
  return Status{code, arg, std::move(msg) + " [" + where + ":" + std::to_string(line) + "]"};
}

}  // namespace gemmkit::core

#define GEMMKIT_ERROR(code, arg, msg) \
  ::gemmkit::core::make_status((code), (arg), (msg), __FILE__, __LINE__)
#define GEMMKIT_INVALID(arg, msg) GEMMKIT_ERROR(::gemmkit::StatusCode::InvalidValue, (arg), (msg))
#define GEMMKIT_UNSUPPORTED(msg) \
  GEMMKIT_ERROR(::gemmkit::StatusCode::NotSupported, ::gemmkit::Arg::None, (msg))
