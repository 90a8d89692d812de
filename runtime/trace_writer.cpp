#include "runtime/trace_writer.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "runtime/json.hpp"
#include "runtime/process_state.hpp"
#include "runtime/trace_recorder.hpp"

namespace kpn {
namespace {

constexpr std::string_view kRunEnds[] = {"yield", "lock", "park", "exit"};

// Buffers the JSON text and writes it out in large pieces; remembers the first write error.
class JsonOut {
 public:
  explicit JsonOut(std::FILE* f) : f_(f) {}
  // One event object; the separating commas are added here.
  template <class... Args>
  void event(fmt::format_string<Args...> format, Args&&... args) {
    if (events_++ > 0) buffer_.push_back(',');
    buffer_.push_back('\n');
    fmt::format_to(std::back_inserter(buffer_), format, std::forward<Args>(args)...);
    if (buffer_.size() > (1u << 20)) flush();
  }
  void raw(std::string_view s) { buffer_.append(s.data(), s.data() + s.size()); }
  void flush() {
    if (buffer_.size() > 0 && std::fwrite(buffer_.data(), 1, buffer_.size(), f_) != buffer_.size() && error_ == 0) error_ = errno != 0 ? errno : EIO;
    buffer_.clear();
  }
  std::uint64_t events() const noexcept { return events_; }
  int error() const noexcept { return error_; }

 private:
  std::FILE* f_;
  fmt::memory_buffer buffer_;
  std::uint64_t events_ = 0;
  int error_ = 0;
};

// A time in the format's unit, microseconds, printed exactly from whole nanoseconds (so that a slice's
// end, ts + dur, is exact too, and adjacent slices never seem to overlap by a rounding error).
struct Micros {
  std::int64_t ns;
};

}  // namespace
}  // namespace kpn

template <>
struct fmt::formatter<kpn::Micros> : fmt::formatter<std::string_view> {
  auto format(kpn::Micros t, format_context& ctx) const {
    const std::int64_t ns = t.ns < 0 ? 0 : t.ns;
    return fmt::format_to(ctx.out(), "{}.{:03}", ns / 1000, ns % 1000);
  }
};

namespace kpn {
namespace {

class Writer {
 public:
  Writer(const TraceRecorder& trace, const std::vector<std::shared_ptr<ChannelView>>& channels, const TraceRunInfo& run,
         JsonOut& out)
      : trace_(trace), run_(run), out_(out), runtime_tid_(trace.workers()), origin_(trace.origin()), ns_per_tick_(trace.ns_per_tick()) {
    for (const auto& c : channels) channel_names_.emplace(c.get(), json_string(c->name()));
  }

  void write() {
    out_.event(R"({{"ph":"M","pid":1,"name":"process_name","args":{{"name":{}}}}})",
               json_string(fmt::format("kpn run ({}, {} workers)", run_.scheduler, trace_.workers())));
    for (unsigned i = 0; i < trace_.workers(); ++i) {
      const int pu = i < run_.pus.size() ? run_.pus[i] : -1;
      const std::string name = pu >= 0 ? fmt::format("worker {} (PU {})", i, pu) : fmt::format("worker {}", i);
      out_.event(R"({{"ph":"M","pid":1,"tid":{},"name":"thread_name","args":{{"name":{}}}}})", i, json_string(name));
      out_.event(R"({{"ph":"M","pid":1,"tid":{},"name":"thread_sort_index","args":{{"sort_index":{}}}}})", i, i);
    }
    out_.event(R"({{"ph":"M","pid":1,"tid":{},"name":"thread_name","args":{{"name":"runtime"}}}})", runtime_tid_);
    out_.event(R"({{"ph":"M","pid":1,"tid":{},"name":"thread_sort_index","args":{{"sort_index":{}}}}})", runtime_tid_,
               runtime_tid_);
    out_.event(R"({{"ph":"X","cat":"network","name":"run","pid":1,"tid":{},"ts":{},"dur":{}}})", runtime_tid_,
               at(run_.start), span(run_.start, run_.end - run_.start));
    for (unsigned i = 0; i < trace_.workers(); ++i) {
      trace_.worker_buffer(i).for_each([&](const TraceEvent& e) { event(e, i); });
    }
    trace_.shared_buffer().for_each([&](const TraceEvent& e) { event(e, runtime_tid_); });
    for (const auto& n : trace_.notes()) {
      out_.event(R"({{"ph":"i","s":"g","cat":{},"name":{},"pid":1,"tid":{},"ts":{},"args":{{"message":{}}}}})",
                 json_string(n.name), json_string(n.name), runtime_tid_, at(n.ts), json_string(n.message));
    }
  }

 private:
  // Nanoseconds since the trace's origin of a TraceBuffer::now() tick.
  std::int64_t ns(std::int64_t tick) const {
    return static_cast<std::int64_t>(static_cast<double>(tick - origin_) * ns_per_tick_ + 0.5);
  }
  Micros at(std::int64_t tick) const { return {ns(tick)}; }
  // A slice's duration, as the difference of its rounded ends.
  Micros span(std::int64_t tick, std::int64_t dur) const { return {ns(tick + dur) - ns(tick)}; }

  const std::string& process(std::uint64_t id) {
    auto it = process_names_.find(id);
    if (it != process_names_.end()) return it->second;
    const auto& names = trace_.process_names();
    auto n = names.find(id);
    return process_names_.emplace(id, json_string(n != names.end() ? n->second : fmt::format("process {}", id))).first->second;
  }
  // The channel's encoded name; null for none (a plain sleep waits on no channel).
  std::string_view channel(const void* c) const {
    if (c == nullptr) return "null";
    auto it = channel_names_.find(c);
    return it != channel_names_.end() ? std::string_view(it->second) : std::string_view(R"("?")");
  }

  void event(const TraceEvent& e, unsigned tid) {
    switch (e.kind) {
      case TraceKind::Run: run_slice(e, tid); return;
      case TraceKind::Wake:
        out_.event(R"({{"ph":"i","s":"t","cat":"wake","name":"wake","pid":1,"tid":{},"ts":{},"args":{{"process":{},"channel":{}}}}})",
                   tid, at(e.ts), process(e.subject), channel(e.object));
        if (e.flow != 0) {
          out_.event(R"({{"ph":"s","cat":"wake","name":"wake","id":{},"pid":1,"tid":{},"ts":{}}})", e.flow, tid, at(e.ts));
        }
        return;
      case TraceKind::StealSearch:
        out_.event(R"({{"ph":"X","cat":"steal","name":"steal attempts","pid":1,"tid":{},"ts":{},"dur":{},"args":{{"attempts":{}}}}})",
                   tid, at(e.ts), span(e.ts, e.dur), e.count);
        return;
      case TraceKind::Steal:
        out_.event(R"({{"ph":"i","s":"t","cat":"steal","name":"steal","pid":1,"tid":{},"ts":{},"args":{{"victim":{},"processes":{}}}}})",
                   tid, at(e.ts), e.subject, e.count);
        return;
      case TraceKind::Sleep:
        out_.event(R"({{"ph":"X","cat":"idle","name":"sleep","pid":1,"tid":{},"ts":{},"dur":{}}})", tid, at(e.ts),
                   span(e.ts, e.dur));
        return;
      case TraceKind::ChannelFill:
        out_.event(R"({{"ph":"C","cat":"channel","name":{},"pid":1,"ts":{},"args":{{"messages":{}}}}})",
                   json_string(fmt::format("channel {}", json_unquoted(channel(e.object)))), at(e.ts), e.count);
        return;
      case TraceKind::Growth:
        out_.event(R"({{"ph":"i","s":"p","cat":"deadlock","name":"channel grown","pid":1,"tid":{},"ts":{},"args":{{"channel":{},"from":{},"to":{}}}}})",
                   tid, at(e.ts), channel(e.object), e.subject, e.count);
        return;
    }
  }

  void run_slice(const TraceEvent& e, unsigned tid) {
    const unsigned end = e.reason & 0x0F;
    const std::string& name = process(e.subject);
    if (e.flow != 0) {
      out_.event(R"({{"ph":"f","bp":"e","cat":"wake","name":"wake","id":{},"pid":1,"tid":{},"ts":{}}})", e.flow, tid, at(e.ts));
    }
    if (end != static_cast<unsigned>(TraceRunEnd::Park)) {
      out_.event(R"({{"ph":"X","cat":"run","name":{},"pid":1,"tid":{},"ts":{},"dur":{},"args":{{"id":{},"end":"{}"}}}})", name, tid,
                 at(e.ts), span(e.ts, e.dur), e.subject, end < 4 ? kRunEnds[end] : "?");
      return;
    }
    const auto direction = to_string(static_cast<WaitDirection>(e.reason >> 4));
    out_.event(
        R"({{"ph":"X","cat":"run","name":{},"pid":1,"tid":{},"ts":{},"dur":{},"args":{{"id":{},"end":"park","channel":{},"wait":"{}"}}}})",
        name, tid, at(e.ts), span(e.ts, e.dur), e.subject, channel(e.object), direction);
    out_.event(R"({{"ph":"i","s":"t","cat":"block","name":"block","pid":1,"tid":{},"ts":{},"args":{{"process":{},"channel":{},"wait":"{}"}}}})",
               tid, at(e.ts + e.dur), name, channel(e.object), direction);
  }

  // The text inside an encoded JSON string (quotes stripped), for building a longer string from it.
  static std::string json_unquoted(std::string_view encoded) {
    return std::string(encoded.substr(1, encoded.size() - 2));
  }

  const TraceRecorder& trace_;
  const TraceRunInfo& run_;
  JsonOut& out_;
  const unsigned runtime_tid_;
  const std::int64_t origin_;
  const double ns_per_tick_;
  std::unordered_map<const void*, std::string> channel_names_;    // encoded JSON strings
  std::unordered_map<std::uint64_t, std::string> process_names_;  // encoded JSON strings
};

}  // namespace

TraceResult write_trace(const TraceRecorder& trace, const std::vector<std::shared_ptr<ChannelView>>& channels,
                        const TraceRunInfo& run) {
  TraceResult result;
  result.path = trace.settings().path;
  result.dropped = trace.dropped();
  std::FILE* f = std::fopen(result.path.c_str(), "w");
  if (f == nullptr) {
    result.error = fmt::format("cannot open '{}' for writing: {}", result.path, std::strerror(errno));
    return result;
  }
  JsonOut out(f);
  out.raw("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
  Writer(trace, channels, run, out).write();
  out.raw(fmt::format("\n],\"otherData\":{{\"scheduler\":{},\"workers\":{},\"trace_limit\":{},\"dropped_events\":{},"
                      "\"sample_ms\":{},\"counter_channels_max\":{}}}}}\n",
                      json_string(run.scheduler), trace.workers(), trace.settings().limit, result.dropped,
                      trace.settings().sample_ms, TraceRecorder::kMaxCounterChannels));
  out.flush();
  int err = out.error();
  if (std::fflush(f) != 0 && err == 0) err = errno;
  if (std::fclose(f) != 0 && err == 0) err = errno;
  if (err != 0) result.error = fmt::format("cannot write '{}': {}", result.path, std::strerror(err));
  result.events = out.events();
  return result;
}

}  // namespace kpn
