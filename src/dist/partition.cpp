// Shards, chunks and pieces (partition.hpp).
#include "dist/partition.hpp"

#include <algorithm>
#include <limits>

namespace gemmkit::dist {

std::vector<Range> equal_ranges(std::int64_t total, int parts) {
  std::vector<Range> out;
  if (total < 0 || parts < 1) return out;
  const std::int64_t q = total / parts, r = total % parts;
  std::int64_t at = 0;
  for (int p = 0; p < parts; ++p) {
    const std::int64_t n = q + (p < r ? 1 : 0);
    out.push_back({at, at + n});
    at += n;
  }
  return out;
}

std::vector<Range> ranges_of_sizes(std::span<const std::int64_t> sizes) {
  std::vector<Range> out;
  std::int64_t at = 0;
  for (std::int64_t n : sizes) {
    if (n < 0 || n > std::numeric_limits<std::int64_t>::max() - at) return {};
    out.push_back({at, at + n});
    at += n;
  }
  return out;
}

std::string check_sizes(std::span<const std::int64_t> sizes, std::int64_t total, int parts) {
  if (static_cast<std::int64_t>(sizes.size()) != parts)
    return std::to_string(sizes.size()) + " shard sizes for " + std::to_string(parts) + " ranks";
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0)
      return "shard " + std::to_string(i) + " has negative size " + std::to_string(sizes[i]);
    if (sizes[i] > total - sum)  // also catches a sum that would overflow
      return "the shard sizes add up to more than " + std::to_string(total);
    sum += sizes[i];
  }
  if (sum != total)
    return "the shard sizes add up to " + std::to_string(sum) + ", not " + std::to_string(total);
  return {};
}

bool all_equal(std::span<const Range> shards) noexcept {
  return std::all_of(shards.begin(), shards.end(),
                     [&](const Range& r) { return r.size() == shards.front().size(); });
}

std::vector<Range> chunk_plan(std::int64_t total, int chunks) {
  if (total <= 0) return {Range{0, 0}};
  const std::int64_t c = std::clamp<std::int64_t>(chunks, 1, total);
  return equal_ranges(total, static_cast<int>(c));
}

std::vector<Piece> pieces_of(Range rows, std::span<const Range> shards) {
  std::vector<Piece> out;
  for (std::size_t r = 0; r < shards.size(); ++r) {
    const std::int64_t lo = std::max(rows.begin, shards[r].begin);
    const std::int64_t hi = std::min(rows.end, shards[r].end);
    if (lo < hi) out.push_back({static_cast<int>(r), {lo, hi}, lo - shards[r].begin});
  }
  return out;
}

}  // namespace gemmkit::dist
