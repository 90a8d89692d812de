#include "soak_run.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include <kpn.hpp>

namespace kpn::soak {
namespace {

using Out = Writer<u64>;
using In = Reader<u64>;

// A node's outputs. An output whose reader left (BrokenChannel) is dropped and skipped from then on;
// the node goes on serving the others and stops once none is left, which lets its own inputs go too.
class Outputs {
 public:
  Outputs(std::vector<Out> writers, std::atomic<std::uint64_t>* broken)
      : writers_(std::move(writers)), live_(writers_.size()), broken_(broken) {}
  // Writes `v` to output `i` if it still has a reader. Returns false once no output has one.
  bool write(std::size_t i, u64 v) {
    if (writers_[i]) {
      try {
        writers_[i].write(v);
      } catch (const BrokenChannel&) {
        writers_[i] = Out();  // dropping it closes the channel; nobody reads it any more
        --live_;
        broken_->fetch_add(1, std::memory_order_relaxed);
      }
    }
    return live_ > 0;
  }
  std::size_t size() const noexcept { return writers_.size(); }

 private:
  std::vector<Out> writers_;
  std::size_t live_;
  std::atomic<std::uint64_t>* broken_;  // the run's count of BrokenChannel caught; outlives the run
};

// The next value of a stream the node's logic says must have one; a missing value is a lost message.
u64 must_read(In& in, const char* what) {
  auto v = in.read();
  if (!v) throw std::runtime_error(fmt::format("{}: stream '{}' ended early (a value was lost)", what, in.channel_name()));
  return *v;
}

void add_loop(Network& net, const std::string& name, const Node& n, In in, Outputs out) {
  // The ring: the loop head writes ring_ch[0]; stage s reads ring_ch[s] and writes ring_ch[s + 1]; the
  // head reads ring_ch[ring] back.
  std::vector<Out> txs;
  std::vector<In> rxs;
  for (std::size_t s = 0; s <= n.ring; ++s) {
    auto [tx, rx] = net.channel<u64>(n.loop_capacity, fmt::format("{}.ring{}", name, s));
    txs.push_back(std::move(tx));
    rxs.push_back(std::move(rx));
  }
  for (std::size_t s = 0; s < n.ring; ++s) {
    net.process(fmt::format("{}.stage{}", name, s),
                [rx = std::move(rxs[s]), tx = std::move(txs[s + 1]), salt = n.salt, s]() mutable {
                  while (auto v = rx.read()) {
                    try {
                      tx.write(ring_stage(salt, s, *v));
                    } catch (const BrokenChannel&) {
                      return;  // the head left (its output lost its reader): nothing more to carry
                    }
                  }
                });
  }
  net.process(name, [in = std::move(in), out = std::move(out), send = std::move(txs[0]), back = std::move(rxs[n.ring]),
                     n]() mutable {
    while (auto x = in.read()) {
      // The whole burst goes out before anything is read back: with a burst above what the ring holds,
      // every process of the loop blocks on a full channel, and only Parks' rule lets it go on.
      for (u64 j = 0; j < n.burst; ++j) send.write(loop_send(n.salt, *x, j));
      u64 acc = 0;
      for (u64 j = 0; j < n.burst; ++j) acc = loop_fold(acc, must_read(back, "loop"));
      if (!out.write(0, acc)) return;
    }
  });
}

void add_spawner(Network& net, const std::string& name, const Node& n, In in, Outputs out) {
  net.process(name, [in = std::move(in), out = std::move(out), n, name]() mutable {
    std::vector<u64> chunk;
    bool more = true;
    for (std::size_t helper = 0; more; ++helper) {
      chunk.clear();
      while (chunk.size() < n.chunk) {
        auto x = in.read();
        if (!x) {
          more = false;
          break;
        }
        chunk.push_back(*x);
      }
      if (chunk.empty()) break;
      // A helper per chunk, on channels made at run time: it maps what it reads until its input ends.
      auto [to_tx, to_rx] = kpn::channel<u64>(n.helper_capacity);
      auto [back_tx, back_rx] = kpn::channel<u64>(n.helper_capacity);
      kpn::spawn(fmt::format("{}.helper{}", name, helper), [rx = std::move(to_rx), tx = std::move(back_tx), salt = n.salt]() mutable {
        while (auto v = rx.read()) {
          try {
            tx.write(helper_value(salt, *v));
          } catch (const BrokenChannel&) {
            return;  // the spawner left
          }
        }
      });
      if (n.eager) {
        // The whole chunk first: above what the helper's channels hold, only Parks' rule (on channels
        // created during the run) lets this go on.
        for (u64 x : chunk) to_tx.write(x);
        to_tx.close();
        for (std::size_t i = 0; i < chunk.size(); ++i) {
          if (!out.write(0, must_read(back_rx, "spawner"))) return;
        }
      } else {
        for (u64 x : chunk) {
          to_tx.write(x);
          if (!out.write(0, must_read(back_rx, "spawner"))) return;
        }
        to_tx.close();
      }
      if (back_rx.read()) throw std::runtime_error("spawner: helper sent more values than it was given");
    }
  });
}

// Declares node `index`; a sink fills sinks[sink], its number among the sinks in node order.
void add_node(Network& net, std::size_t index, const Node& n, std::vector<In>& readers, std::vector<Out>& writers,
              std::vector<std::vector<u64>>& sinks, std::size_t sink, std::atomic<std::uint64_t>* broken) {
  const std::string name = fmt::format("n{}.{}", index, to_string(n.kind));
  std::vector<Out> outs;
  for (std::size_t s : n.outs) outs.push_back(std::move(writers[s]));
  Outputs out(std::move(outs), broken);
  switch (n.kind) {
    case NodeKind::Source:
      net.process(name, [out = std::move(out), n]() mutable {
        for (u64 i = 0; i < n.count; ++i) {
          if (!out.write(0, source_value(n.salt, i))) return;
        }
      });
      break;
    case NodeKind::Map:
    case NodeKind::Filter:
      net.process(name, [in = std::move(readers[n.ins[0]]), out = std::move(out), n]() mutable {
        while (auto x = in.read()) {
          if (n.kind == NodeKind::Filter && !filter_keeps(n.salt, *x)) continue;
          if (!out.write(0, n.kind == NodeKind::Map ? map_value(n.salt, *x) : *x)) return;
        }
      });
      break;
    case NodeKind::Fork:
      net.process(name, [in = std::move(readers[n.ins[0]]), out = std::move(out)]() mutable {
        while (auto x = in.read()) {
          out.write(0, *x);
          if (!out.write(1, *x)) return;
        }
      });
      break;
    case NodeKind::Join:
      net.process(name, [a = std::move(readers[n.ins[0]]), b = std::move(readers[n.ins[1]]), out = std::move(out)]() mutable {
        bool a_open = true;
        bool b_open = true;
        while (a_open || b_open) {
          if (a_open) {
            if (auto v = a.read()) {
              if (!out.write(0, *v)) return;
            } else {
              a_open = false;
            }
          }
          if (b_open) {
            if (auto v = b.read()) {
              if (!out.write(0, *v)) return;
            } else {
              b_open = false;
            }
          }
        }
      });
      break;
    case NodeKind::Loop: add_loop(net, name, n, std::move(readers[n.ins[0]]), std::move(out)); break;
    case NodeKind::Spawner: add_spawner(net, name, n, std::move(readers[n.ins[0]]), std::move(out)); break;
    case NodeKind::Sink: {
      // Each sink fills its own vector; run() returning orders those writes before the caller reads them.
      std::vector<u64>* got = &sinks[sink];
      net.process(name, [in = std::move(readers[n.ins[0]]), got, limit = n.limit]() mutable {
        while (limit == 0 || got->size() < limit) {
          auto v = in.read();
          if (!v) return;
          got->push_back(*v);
        }
        // Returning drops the reader: the writer's next write throws BrokenChannel.
      });
      break;
    }
  }
}

// Interrupts the run after `timeout`; past twice that, the runtime did not honour the interrupt either.
class Watchdog {
 public:
  Watchdog(Runtime& rt, std::chrono::milliseconds timeout, std::string what)
      : thread_([this, &rt, timeout, what = std::move(what)] {
          std::unique_lock lock(mutex_);
          if (cv_.wait_for(lock, timeout, [this] { return done_; })) return;
          fired_ = true;
          rt.interrupt();
          if (cv_.wait_for(lock, 2 * timeout, [this] { return done_; })) return;
          std::fprintf(stderr, "kpn-soak: HANG that Runtime::interrupt() did not end: %s\n", what.c_str());
          std::fflush(stderr);
          std::_Exit(3);
        }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  bool fired() {
    std::lock_guard lock(mutex_);
    return fired_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;   // guarded by mutex_
  bool fired_ = false;  // guarded by mutex_
  std::thread thread_;  // last: starts after the fields it reads
};

}  // namespace

RunOutcome run_network(const NetSpec& spec, const std::string& scheduler, unsigned cpus,
                       std::chrono::milliseconds timeout) {
  RunOutcome outcome;
  outcome.sinks.resize(spec.sinks());
  Network net;
  std::vector<In> readers;
  std::vector<Out> writers;
  for (std::size_t s = 0; s < spec.capacities.size(); ++s) {
    auto [tx, rx] = net.channel<u64>(spec.capacities[s], fmt::format("s{}", s));
    writers.push_back(std::move(tx));
    readers.push_back(std::move(rx));
  }
  // Sinks are numbered in node order, whatever the order the nodes are declared in.
  std::vector<std::size_t> sink_number(spec.nodes.size());
  for (std::size_t i = 0, sinks = 0; i < spec.nodes.size(); ++i) {
    sink_number[i] = sinks;
    if (spec.nodes[i].kind == NodeKind::Sink) ++sinks;
  }
  std::atomic<std::uint64_t> broken{0};
  for (std::size_t k = 0; k < spec.nodes.size(); ++k) {
    const std::size_t i = spec.declared_backwards ? spec.nodes.size() - 1 - k : k;
    add_node(net, i, spec.nodes[i], readers, writers, outcome.sinks, sink_number[i], &broken);
  }

  Runtime rt({.cpus = cpus, .scheduler = scheduler});
  Watchdog watchdog(rt, timeout, fmt::format("seed {} under {} on {} workers\n{}", spec.seed, scheduler, cpus, describe(spec)));
  const auto start = std::chrono::steady_clock::now();
  try {
    const RunReport report = rt.run(net);
    outcome.messages = report.messages;
    outcome.processes = report.processes;
    outcome.deadlocks_resolved = report.deadlocks_resolved;
    outcome.scheduler_stats = report.scheduler_stats;
  } catch (const Interrupted&) {
    outcome.status = watchdog.fired() ? RunOutcome::Status::Hang : RunOutcome::Status::Failed;
    outcome.error = watchdog.fired() ? fmt::format("no end after {} ms (interrupted by the watchdog)", timeout.count())
                                     : "interrupted, not by the watchdog";
  } catch (const std::exception& e) {
    outcome.status = RunOutcome::Status::Failed;
    outcome.error = e.what();
  }
  outcome.broken_writes = broken.load();
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

}  // namespace kpn::soak
