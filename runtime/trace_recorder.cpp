#include "runtime/trace_recorder.hpp"

#include <algorithm>

#include "runtime/channel_registry.hpp"

namespace kpn {
namespace {

// Flow ids: buffer i draws from (i + 1) << 40 upwards, so ids from different buffers never meet (a
// buffer would need 2^40 wake-ups to reach the next one's range).
constexpr std::uint64_t flow_base(unsigned buffer) { return std::uint64_t{buffer + 1} << 40; }

}  // namespace

void trace_steal(TraceBuffer& buffer, int victim, std::size_t taken) {
  const std::int64_t now = buffer.now();
  if (taken == 0) {
    buffer.steal_attempt_failed(now);
    return;
  }
  buffer.add({now, 0, static_cast<std::uint64_t>(victim), taken, nullptr, 0, TraceKind::Steal, 0});
}

TraceRecorder::TraceRecorder(TraceSettings settings, unsigned workers)
    : settings_(std::move(settings)),
      origin_(std::chrono::steady_clock::now()),
      origin_tick_(TraceBuffer::now()),
      share_(std::max<std::size_t>(1, settings_.limit / (workers + 1))),
      shared_(share_, flow_base(workers)) {
  workers_.reserve(workers);
  for (unsigned i = 0; i < workers; ++i) workers_.push_back(std::make_unique<TraceBuffer>(share_, flow_base(i)));
}

TraceRecorder::~TraceRecorder() { stop_sampling(); }

void TraceRecorder::add_shared(const TraceEvent& e) {
  std::lock_guard g(mutex_);
  shared_.add(e);
}

std::uint64_t TraceRecorder::add_shared_wake(std::uint64_t woken, const void* channel) {
  std::lock_guard g(mutex_);
  const std::uint64_t flow = shared_.new_flow();
  if (!shared_.add({shared_.now(), 0, woken, 0, channel, flow, TraceKind::Wake, 0})) return 0;
  return flow;
}

double TraceRecorder::ns_per_tick() const noexcept {
  const std::int64_t ticks = TraceBuffer::now() - origin_tick_;
  const double ns = static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - origin_).count());
  return ticks > 0 ? ns / static_cast<double>(ticks) : 1.0;
}

void TraceRecorder::add_note(std::int64_t ts, std::string name, std::string message) {
  std::lock_guard g(mutex_);
  notes_.push_back({ts, std::move(name), std::move(message)});
}

void TraceRecorder::name_process(ProcessId id, const std::string& name) {
  std::lock_guard g(mutex_);
  names_.emplace(id, name);
}

std::uint64_t TraceRecorder::dropped() const noexcept {
  std::uint64_t n = shared_.dropped();
  for (const auto& w : workers_) n += w->dropped();
  return n;
}

void TraceRecorder::start_sampling(const ChannelRegistry& channels) {
  if (sampler_.joinable()) return;
  stop_sampling_ = false;
  sampler_ = std::thread([this, &channels] { sample_loop(channels); });
}

void TraceRecorder::stop_sampling() {
  {
    std::lock_guard g(sampler_mutex_);
    stop_sampling_ = true;
  }
  sampler_wake_.notify_all();
  if (sampler_.joinable()) sampler_.join();
}

void TraceRecorder::sample_loop(const ChannelRegistry& channels) {
  std::unordered_map<const ChannelView*, std::size_t> last;  // this thread's own
  const auto period = std::chrono::milliseconds(std::max(1u, settings_.sample_ms));
  std::unique_lock lock(sampler_mutex_);
  do {
    lock.unlock();
    const auto list = channels.list();  // keeps each channel alive while it is sampled
    const std::size_t n = std::min(list.size(), kMaxCounterChannels);
    for (std::size_t i = 0; i < n; ++i) {
      const ChannelView* c = list[i].get();
      const std::size_t size = c->snapshot().size;
      auto [it, fresh] = last.try_emplace(c, size);
      if (!fresh && it->second == size) continue;
      it->second = size;
      add_shared({TraceBuffer::now(), 0, 0, size, c, 0, TraceKind::ChannelFill, 0});
    }
    lock.lock();
  } while (!sampler_wake_.wait_for(lock, period, [this] { return stop_sampling_; }));
}

}  // namespace kpn
