#include "bench/measure.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

namespace gemmkit::bench {

std::string Measurement::describe() const {
  switch (clock) {
    case ClockKind::Steady: return "steady_clock";
    case ClockKind::CudaEvent: return "cuda_event";
    case ClockKind::CudaGraph: return "cuda_graph x" + std::to_string(calls_per_sample);
  }
  return "?";
}

namespace {

void host_flush(void* scratch, std::int64_t bytes) {
  // Writing the scratch evicts the cache; reading one byte per line back keeps the compiler
  // from treating the memset as dead.
  std::memset(scratch, 0x3c, static_cast<std::size_t>(bytes));
  volatile const unsigned char* p = static_cast<const unsigned char*>(scratch);
  unsigned sink = 0;
  for (std::int64_t i = 0; i < bytes; i += 4096) sink += p[i];
  (void)sink;
}

// Takes samples of one provider with a fixed clock; rotation through the sets is shared by
// every sampler of a measurement through `cursor`.
class Sampler {
 public:
  Sampler(Provider& p, const OperandSets& sets, const RotationPlan& plan,
          const MeasureTarget& t, int* cursor)
      : p_(p), sets_(sets), plan_(plan), t_(t), cursor_(cursor) {}

  Status prepare(ClockKind clock, int calls) {
    clock_ = clock;
    calls_ = calls;
    if (clock != ClockKind::CudaGraph) return {};
    graph_ = std::make_unique<gpu::Graph>();
    // The graph cycles through every set in order (calls is a multiple of the set count).
    return graph_->capture(*t_.stream, [this](void* stream) -> Status {
      for (int i = 0; i < calls_; ++i)
        if (Status s = p_.call(sets_[i % sets_.size()], stream); !s) return s;
      return {};
    });
  }

  Status sample(double* ms_per_call) {
    double ms = 0;
    Status st;
    switch (clock_) {
      case ClockKind::CudaGraph:
        st = graph_->replay(*t_.stream, &ms);
        break;
      case ClockKind::Steady:
      case ClockKind::CudaEvent: {
        const OperandSet& s = sets_[*cursor_ % sets_.size()];
        *cursor_ = (*cursor_ + 1) % sets_.size();
        if (plan_.mode == CacheMode::Flush) {
          if (t_.device) st = gpu::flush_l2(*t_.stream, t_.flush_scratch, plan_.flush_bytes);
          else host_flush(t_.flush_scratch, plan_.flush_bytes);
          if (!st) return st;
        }
        st = time_one_call(p_, s, t_, &ms);
        break;
      }
    }
    if (!st) return st;
    *ms_per_call = ms / calls_;
    return {};
  }

 private:
  Provider& p_;
  const OperandSets& sets_;
  const RotationPlan& plan_;
  const MeasureTarget& t_;
  int* cursor_;
  ClockKind clock_ = ClockKind::Steady;
  int calls_ = 1;
  std::unique_ptr<gpu::Graph> graph_;
};

Status estimate(Provider& p, const OperandSets& sets, const MeasureTarget& t, double* est) {
  // A guess over 200 ms is good enough; shorter calls get the median of three more.
  if (*est > 200.0) return {};
  double ms[3];
  for (int i = 0; i < 3; ++i)
    if (Status s = time_one_call(p, sets[i % sets.size()], t, &ms[i]); !s) return s;
  std::sort(ms, ms + 3);
  *est = std::max(ms[1], 1e-6);
  return {};
}

}  // namespace

Status time_one_call(Provider& p, const OperandSet& s, const MeasureTarget& t, double* ms) {
  if (t.device)
    return t.stream->time_region([&](void* stream) { return p.call(s, stream); }, ms);
  HostTimer timer;
  Status st = p.call(s, nullptr);
  *ms = timer.elapsed_ms();
  return st;
}

Measurement measure(Provider& cand, Provider* base, const OperandSets& sets,
                    const RotationPlan& plan, const MeasureTarget& t, const MeasureSettings& cfg,
                    double cand_est, double base_est) {
  Measurement m;
  m.ratio = std::numeric_limits<double>::quiet_NaN();
  m.clock = t.device ? ClockKind::CudaEvent : ClockKind::Steady;
  if (Status s = estimate(cand, sets, t, &cand_est); !s) {
    m.status = s;
    return m;
  }
  if (base) {
    if (Status s = estimate(*base, sets, t, &base_est); !s) {
      m.status = s;
      return m;
    }
  }
  const double shortest = base ? std::min(cand_est, base_est) : cand_est;
  const double longest = base ? std::max(cand_est, base_est) : cand_est;
  // GPU calls too short for per-call events: graphs of back-to-back calls (never with an
  // explicit flush, which would land inside the graph).
  if (t.device && plan.mode != CacheMode::Flush && shortest < cfg.graph_below_ms) {
    const int nsets = sets.size();
    int calls = static_cast<int>(std::ceil(cfg.graph_sample_ms / shortest));
    calls = std::min(calls, std::max(1, static_cast<int>(100.0 / longest)));
    calls = std::clamp(calls, 1, 10000);
    calls = (calls + nsets - 1) / nsets * nsets;  // whole rounds of the rotation
    m.clock = ClockKind::CudaGraph;
    m.calls_per_sample = calls;
  }
  int cursor = 0;
  Sampler sc(cand, sets, plan, t, &cursor);
  std::unique_ptr<Sampler> sb;
  if (base) sb = std::make_unique<Sampler>(*base, sets, plan, t, &cursor);
  Status prep = sc.prepare(m.clock, m.calls_per_sample);
  if (prep && sb) prep = sb->prepare(m.clock, m.calls_per_sample);
  if (!prep && m.clock == ClockKind::CudaGraph) {
    // Not capturable (a kernel that synchronizes or allocates): per-call events for both.
    m.clock = ClockKind::CudaEvent;
    m.calls_per_sample = 1;
    prep = sc.prepare(m.clock, 1);
    if (prep && sb) prep = sb->prepare(m.clock, 1);
  }
  if (!prep) {
    m.status = prep;
    return m;
  }
  const double sample_ms =
      (cand_est + (base ? base_est : 0.0)) * static_cast<double>(m.calls_per_sample);
  const int warm = std::max(1, static_cast<int>(std::ceil(cfg.warmup_ms / sample_ms)));
  const int reps = std::clamp(static_cast<int>(std::ceil(cfg.rep_ms / sample_ms)),
                              std::max(1, cfg.min_reps), std::max(1, cfg.max_reps));
  double x = 0, y = 0;
  for (int i = 0; i < warm + reps; ++i) {
    const bool timed = i >= warm;
    // Alternate which provider goes first, so neither always runs after the other.
    const bool cand_first = !base || (i % 2 == 0);
    Status s1 = cand_first ? sc.sample(&x) : sb->sample(&y);
    Status s2 = !base ? Status{} : (cand_first ? sb->sample(&y) : sc.sample(&x));
    if (!s1 || !s2) {
      m.status = !s1 ? s1 : s2;
      return m;
    }
    if (!timed) continue;
    m.candidate_samples.push_back(x);
    if (base) {
      m.baseline_samples.push_back(y);
      m.ratios.push_back(y / x);
    }
  }
  m.candidate = summarize(m.candidate_samples);
  if (base) {
    m.baseline = summarize(m.baseline_samples);
    m.ratio = median_of(m.ratios);
  }
  return m;
}

}  // namespace gemmkit::bench
