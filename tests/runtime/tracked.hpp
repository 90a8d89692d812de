#pragma once
// An RAII probe for the runtime tests: counts constructions and destructions, so a test can check that
// every object captured by or living on the stack of a process was destroyed once the run is over.

#include <atomic>

namespace kpn::test {

struct Census {
  std::atomic<long> made{0};
  std::atomic<long> gone{0};
  long alive() const noexcept { return made.load() - gone.load(); }
};

class Tracked {
 public:
  explicit Tracked(Census& c) noexcept : census_(&c) { census_->made.fetch_add(1); }
  Tracked(const Tracked& o) noexcept : census_(o.census_) { census_->made.fetch_add(1); }
  Tracked(Tracked&& o) noexcept : census_(o.census_) { census_->made.fetch_add(1); }
  Tracked& operator=(const Tracked&) = delete;
  Tracked& operator=(Tracked&&) = delete;
  ~Tracked() { census_->gone.fetch_add(1); }

 private:
  Census* census_;
};

}  // namespace kpn::test
